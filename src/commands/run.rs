//! `pace-hook run SITE -- COMMAND...`: run a command in its site's turn, in
//! the same queue as the agent's calls.

use std::{ffi::OsString, process::Command as Process};

use super::say;
use crate::{
    error::Error,
    exit::{Doing, Exit},
    pacer::Pacer,
};

pub(super) fn run(site: &str, command: &[OsString]) -> Exit {
    let fail = |e: Error| {
        say(&format!("pace-hook: {e}"));
        Exit::for_error(Doing::Run, &e)
    };
    let pacer = match Pacer::from_env() {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let permit = match pacer.wait_turn(site) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let program = command[0].to_string_lossy().into_owned();
    let mut child = match Process::new(&command[0]).args(&command[1..]).spawn() {
        Ok(c) => c,
        Err(source) => {
            let _ = permit.finish();
            return fail(Error::Spawn { program, source });
        }
    };
    // The command may outlast the in-flight hold: keep the site held while it
    // runs. If pace-hook is killed, the renewals stop and the hold lapses.
    let (done, stop) = std::sync::mpsc::channel::<()>();
    let status = std::thread::scope(|s| {
        let permit = &permit;
        s.spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stop.recv_timeout(permit.keep_alive_every())
            {
                let _ = permit.keep_alive();
            }
        });
        let status = child.wait();
        drop(done);
        status
    });
    let finished = permit.finish();
    let status = match status {
        Ok(s) => s,
        Err(source) => return fail(Error::Spawn { program, source }),
    };
    if let Err(e) = finished {
        say(&format!("pace-hook: {e}"));
    }
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Passthrough(code as u8),
        (None, Some(sig)) => Exit::Passthrough(128u8.wrapping_add(sig as u8)),
        _ => Exit::Failure,
    }
}
