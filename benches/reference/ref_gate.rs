// The reference gate on files for the caller-side gap: see REF_GATE_SRC in
// benches/hook/main.rs. `ref-gate pre|post DIR INTERVAL_MS`.
use std::{
    fs::File,
    io::Read,
    os::unix::fs::FileExt,
    time::{Duration, SystemTime, UNIX_EPOCH},
};
fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}
fn open(dir: &str, name: &str) -> File {
    File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(format!("{dir}/{name}"))
        .unwrap()
}
fn main() {
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    let args: Vec<String> = std::env::args().collect();
    let (dir, interval_us) = (&args[2], args[3].parse::<u64>().unwrap() * 1000);
    let (lock, state) = (open(dir, "lock"), open(dir, "state"));
    if args[1] == "post" {
        lock.lock().unwrap();
        state
            .write_all_at(format!("{:<20}", now_us()).as_bytes(), 0)
            .unwrap();
        return;
    }
    let queue = open(dir, "queue");
    queue.lock().unwrap();
    loop {
        lock.lock().unwrap();
        let mut buf = [0u8; 20];
        let n = state.read_at(&mut buf, 0).unwrap();
        let text = std::str::from_utf8(&buf[..n]).unwrap().trim();
        if text == "busy" {
            lock.unlock().unwrap();
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        let due = text.parse::<u64>().unwrap_or(0) + interval_us;
        let now = now_us();
        if now < due {
            std::thread::sleep(Duration::from_micros(due - now));
        }
        state
            .write_all_at(format!("{:<20}", "busy").as_bytes(), 0)
            .unwrap();
        return;
    }
}
