// Measures peak RSS for the bench: runs its arguments as a command, stdin
// inherited, and prints the child's `ru_maxrss` (KiB) and whether it
// succeeded. See TRAMPOLINE_SRC in benches/hook/main.rs for why.
use std::process::{Command, Stdio};
#[repr(C)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    maxrss: i64,
    rest: [i64; 13],
}
extern "C" {
    fn getrusage(who: i32, usage: *mut Rusage) -> i32;
}
fn main() {
    let mut args = std::env::args_os().skip(1);
    let program = args.next().expect("a program");
    let status = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .status();
    let mut u = Rusage {
        utime: [0; 2],
        stime: [0; 2],
        maxrss: 0,
        rest: [0; 13],
    };
    let r = unsafe { getrusage(-1, &mut u) };
    let ok = status.map_or(false, |s| s.success()) && r == 0;
    println!("{} {}", u.maxrss, ok);
}
