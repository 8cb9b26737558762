//! `pace-hook gaps`: the gate log's gaps, checked against each interval, and
//! `--svg` to draw them.

use super::{print, say};
use crate::{
    config,
    exit::{Doing, Exit},
    pacing::gaps,
    store,
};

use super::timeline;

pub(super) fn run(site: Option<&str>, svg: Option<&std::path::Path>) -> Exit {
    let config = config::Config::discover().unwrap_or_default();
    let store = match store::open(&config) {
        Ok(s) => s,
        Err(e) => {
            say(&format!("pace-hook: {e}"));
            return Exit::for_error(Doing::Operator, &e);
        }
    };
    match store.read_log() {
        Ok((records, bad)) => {
            if let Some(path) = svg {
                // Written even for an empty log, so a script that asked
                // for a picture finds one.
                if let Err(e) = std::fs::write(path, timeline::svg(&records, site)) {
                    say(&format!(
                        "pace-hook: could not write the timeline to `{}`: {e}",
                        path.display()
                    ));
                    return Exit::Failure;
                }
            }
            if records.is_empty() && bad == 0 {
                print(&format!("no gate log in {} yet\n", store.describe()));
                return Exit::Success;
            }
            let (text, short) = gaps::report(&records, site);
            print(&text);
            if bad > 0 {
                print(&format!(
                    "({bad} unreadable line(s) in the gate log skipped)\n"
                ));
            }
            if short { Exit::Failure } else { Exit::Success }
        }
        Err(e) => {
            say(&format!("pace-hook: {e}"));
            Exit::for_error(Doing::Operator, &e)
        }
    }
}
