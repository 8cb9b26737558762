//! A `redis-server` of a test's own, on a free loopback port with
//! persistence off, killed when dropped. Shared by the Redis tests; a
//! machine without `redis-server` fails them, saying how to install it.
#![allow(dead_code, unreachable_pub)]

use std::{
    io::{Read as _, Write as _},
    net::{TcpListener, TcpStream},
    path::PathBuf,
    process::{Child, Command, Stdio},
    thread,
    time::{Duration, Instant},
};

/// A `redis-server` of the test's own; killed when dropped.
pub struct Server {
    child: Option<Child>,
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    extra: Vec<String>,
}

/// The `redis-server` on `PATH`. Without one, the calling test fails with one
/// line saying what to install, and no backtrace: the failure is the
/// machine's, not the code's, and this machine's `RUST_BACKTRACE=1` would
/// otherwise bury the line under a page of frames per test.
pub fn redis_server() -> PathBuf {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("redis-server"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| missing_redis_server())
}

/// What a Redis test says on a machine without `redis-server`.
pub const MISSING: &str = "redis-server is not on PATH: run `scripts/test`, which installs it, or `apt-get install -y redis-server`; the Redis tests never skip";

fn missing_redis_server() -> ! {
    use std::sync::Once;
    static SAID: Once = Once::new();
    // Once straight to the terminal, past the test harness's capture, so
    // the line shows while the suite runs; and into the test's own output,
    // which the harness prints under the test's name among the failures.
    SAID.call_once(|| {
        let _ = writeln!(std::io::stderr(), "\n{MISSING}\n");
    });
    eprintln!("{MISSING}");
    // `resume_unwind` fails the test without calling the panic hook: no
    // "panicked at" and no backtrace, only the line above.
    std::panic::resume_unwind(Box::new(MISSING))
}

impl Server {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// A server with extra arguments (`--requirepass`, say).
    pub fn start_with(extra: &[&str]) -> Self {
        let mut s = Self {
            child: None,
            port: 0,
            extra: extra.iter().map(|a| a.to_string()).collect(),
        };
        for _ in 0..20 {
            s.port = free_port();
            if s.launch() {
                return s;
            }
        }
        panic!("could not start redis-server on any free port");
    }

    pub fn launch(&mut self) -> bool {
        let mut child = Command::new(redis_server())
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if child.try_wait().unwrap().is_some() {
                return false;
            }
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) {
                let mut buf = [0u8; 64];
                // +PONG, or -NOAUTH from a server with a password: up.
                if s.write_all(b"PING\r\n").is_ok() && s.read(&mut buf).is_ok_and(|n| n > 0) {
                    self.child = Some(child);
                    return true;
                }
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
        false
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Start again on the same port, empty.
    pub fn restart(&mut self) {
        self.kill();
        let start = Instant::now();
        while !self.launch() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "redis-server would not start again on port {}",
                self.port
            );
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// A connection for looking at the keys from outside.
    #[cfg(feature = "redis")]
    pub fn client(&self) -> redis::Connection {
        redis::Client::open(self.url())
            .unwrap()
            .get_connection()
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
