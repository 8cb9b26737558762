// The floor plus the least one admission does with a site's state, for
// section 1c: `floor-step files DIR` or `floor-step redis PORT`. It reads its
// stdin, as a hook must, then either takes a lock on a file in DIR, reads it
// and writes it back (the file store's step, without its log, queue or
// config), or connects to the Redis server on 127.0.0.1:PORT and runs one
// script there that reads the server's clock and a key and writes the key
// (the Redis store's step: one round trip, one script), reads the answer
// and exits.
use std::{
    fs::File,
    io::{Read, Write},
    net::TcpStream,
    os::unix::fs::FileExt,
};
const STEP: &str = "local t = redis.call('TIME') local s = redis.call('GET', KEYS[1]) redis.call('SET', KEYS[1], t[1] .. t[2]) return s";
fn main() {
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    let args: Vec<String> = std::env::args().collect();
    if args[1] == "files" {
        let f = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(format!("{}/state", args[2]))
            .unwrap();
        f.lock().unwrap();
        let mut b = [0u8; 64];
        let n = f.read_at(&mut b, 0).unwrap();
        f.write_all_at(&b[..n.max(1)], 0).unwrap();
        return;
    }
    let mut s = TcpStream::connect(("127.0.0.1", args[2].parse::<u16>().unwrap())).unwrap();
    s.set_nodelay(true).unwrap();
    let mut cmd = String::from("*4\r\n$4\r\nEVAL\r\n");
    for a in [STEP, "1", "floor-step:state"] {
        cmd.push_str(&format!("${}\r\n{a}\r\n", a.len()));
    }
    s.write_all(cmd.as_bytes()).unwrap();
    let mut b = [0u8; 256];
    let n = s.read(&mut b).unwrap();
    assert!(n > 0 && b[0] != b'-', "the server refused the step");
}
