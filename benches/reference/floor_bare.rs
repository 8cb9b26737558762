// The bare floor: the floor with its own C `main`, as pace-hook starts on
// Linux with glibc (src/main.rs). It skips std's start-up (the stack-overflow
// handler, /proc/self/maps) but keeps what pace-hook keeps of it: descriptors
// 0-2 made to exist, SIGPIPE ignored.
#![no_main]
use std::io::Read;

unsafe extern "C" {
    fn poll(fds: *mut [i32; 2], n: u64, timeout: i32) -> i32;
    fn signal(sig: i32, handler: usize) -> usize;
}

#[unsafe(no_mangle)]
extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    // struct pollfd { int fd; short events; short revents; } as two i32s.
    let mut fds = [[0, 0], [1, 0], [2, 0]];
    unsafe {
        poll(fds.as_mut_ptr(), 3, 0);
        signal(13, 1);
    }
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    0
}
