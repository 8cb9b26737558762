//! The `pace-hook` binary: arguments and stdin in, an exit code out. All
//! meaning lives in the library; see `exit.rs` for why failures exit 2.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    pace_hook::run(&args, std::io::stdin().lock()).into()
}
