// The reference gate on Redis for the caller-side gap: see REF_REDIS_SRC in
// benches/hook/main.rs. `ref-redis pre|post PORT INTERVAL_MS`.
use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    time::Duration,
};
enum V {
    Int(i64),
    Other,
}
fn cmd(args: &[&str]) -> Vec<u8> {
    let mut b = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        b.extend(format!("${}\r\n{a}\r\n", a.len()).bytes());
    }
    b
}
fn read(r: &mut BufReader<TcpStream>) -> V {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let (kind, rest) = line.trim_end().split_at(1);
    let n: i64 = rest.parse().unwrap_or(0);
    match kind {
        ":" => V::Int(n),
        "$" if n >= 0 => {
            let mut b = vec![0; n as usize + 2];
            r.read_exact(&mut b).unwrap();
            V::Other
        }
        "*" => {
            for _ in 0..n.max(0) {
                read(r);
            }
            V::Other
        }
        "-" => panic!("{rest}"),
        _ => V::Other,
    }
}
const CHECK: &str = "local t = redis.call('TIME') local now = t[1] * 1000000 + t[2] local s = redis.call('GET', KEYS[1]) if s == 'busy' then return -1 end if not s then return 0 end return math.max(0, tonumber(s) + tonumber(ARGV[1]) - now)";
const FINISH: &str = "local t = redis.call('TIME') redis.call('SET', KEYS[1], t[1] * 1000000 + t[2]) redis.call('LPUSH', KEYS[2], 1) return 1";
fn main() {
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    let args: Vec<String> = std::env::args().collect();
    let interval_us = (args[3].parse::<u64>().unwrap() * 1000).to_string();
    let mut w = TcpStream::connect(("127.0.0.1", args[2].parse::<u16>().unwrap())).unwrap();
    let mut r = BufReader::new(w.try_clone().unwrap());
    if args[1] == "post" {
        w.write_all(&cmd(&["EVAL", FINISH, "2", "ref:state", "ref:wake"]))
            .unwrap();
        read(&mut r);
        return;
    }
    w.write_all(&cmd(&["BLPOP", "ref:token", "0"])).unwrap();
    read(&mut r);
    loop {
        let mut b = cmd(&["DEL", "ref:wake"]);
        b.extend(cmd(&["EVAL", CHECK, "1", "ref:state", &interval_us]));
        w.write_all(&b).unwrap();
        read(&mut r);
        match read(&mut r) {
            V::Int(-1) => {
                w.write_all(&cmd(&["BLPOP", "ref:wake", "1"])).unwrap();
                read(&mut r);
            }
            V::Int(us) => {
                std::thread::sleep(Duration::from_micros(us as u64));
                break;
            }
            V::Other => panic!("an answer that is not a number"),
        }
    }
    let mut b = cmd(&["SET", "ref:state", "busy"]);
    b.extend(cmd(&["LPUSH", "ref:token", "1"]));
    w.write_all(&b).unwrap();
    read(&mut r);
    read(&mut r);
}
