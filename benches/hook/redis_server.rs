//! A `redis-server` for the Redis store's rows: the tests' own server
//! (`tests/common/redis_server.rs`, on a free loopback port with persistence
//! off, killed when dropped), or none where `redis-server` is not installed,
//! which the report then says.

#[allow(unused_imports)]
use super::*;

#[path = "../../tests/common/redis_server.rs"]
mod server;

/// The server the Redis rows run against.
pub(crate) struct RedisServer(server::Server);

impl RedisServer {
    /// A fresh server; `None` where there is no `redis-server`.
    pub(crate) fn start() -> Option<Self> {
        which("redis-server")?;
        Some(Self(server::Server::start()))
    }

    /// The port it listens on, on 127.0.0.1.
    pub(crate) fn port(&self) -> u16 {
        self.0.port
    }

    /// Database `db` of this server.
    pub(crate) fn url(&self, db: u8) -> String {
        format!("redis://127.0.0.1:{}/{db}", self.0.port)
    }

    /// Empty database 0, so that a run starts on a fresh gate.
    pub(crate) fn flush(&self) {
        self.command(&["FLUSHDB"]);
    }

    /// Run one command on database 0 and read its one-line answer.
    pub(crate) fn command(&self, args: &[&str]) {
        use std::io::{BufRead as _, BufReader};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.0.port))
            .expect("connect to redis-server");
        let mut packed = format!("*{}\r\n", args.len());
        for a in args {
            let _ = write!(packed, "${}\r\n{a}\r\n", a.len());
        }
        stream
            .write_all(packed.as_bytes())
            .expect("send to redis-server");
        let mut answer = String::new();
        BufReader::new(stream)
            .read_line(&mut answer)
            .expect("redis-server answers");
        assert!(!answer.starts_with('-'), "{args:?}: {answer}");
    }
}
