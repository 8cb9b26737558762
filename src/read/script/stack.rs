//! A stack of a given size for the analysis, on the thread that asks for it.
//!
//! The parser and the walk recurse once per level of nesting, so the stack a
//! script needs grows with its length (see [`super::analyse`]). The analysis
//! used to run on a thread of its own with that stack; in a fresh hook
//! process, starting that thread and waiting for it cost about half a
//! millisecond of a 10 KB script's event (measured side by side against
//! running on the main thread), more than a third of the analysis itself,
//! most of it waking the other CPU and waking this one again. Switching the
//! stack pointer to a mapped region instead (`psm`, the stack switch under
//! rustc's own `stacker`) costs a `mmap`, a `mprotect` and a `munmap`.
//! `stacker` itself is not used: the first time it runs on a thread it reads
//! `/proc/self/maps` to learn that thread's stack, which this does not need.

use std::io;

/// Runs `f` on a stack of at least `size` bytes mapped for it, with a guard
/// page on each side, and unmaps the stack after. A panic in `f` continues
/// here. `Err`: the stack could not be mapped (an address-space limit).
pub(crate) fn run_on<R: Send, F: FnOnce() -> R + Send>(size: usize, f: F) -> io::Result<R> {
    imp::run_on(size, f)
}

psm::psm_stack_manipulation! {
    yes {
        mod imp {
            use std::{
                io,
                panic::{self, AssertUnwindSafe},
                ptr,
            };

            pub(crate) fn run_on<R: Send, F: FnOnce() -> R + Send>(
                size: usize,
                f: F,
            ) -> io::Result<R> {
                let stack = Mapped::new(size)?;
                // SAFETY: `base` and `len` are multiples of the page size, so
                // aligned as any target's stack must be; the region is mapped
                // read-write, between two inaccessible guard pages, until
                // `stack` drops after `on_stack` returns; and the callback
                // cannot unwind out of `on_stack`: `catch_unwind` stops every
                // panic, which continues below, back on this thread's stack.
                let ran = unsafe {
                    psm::on_stack(stack.base, stack.len, || {
                        panic::catch_unwind(AssertUnwindSafe(f))
                    })
                };
                drop(stack);
                Ok(ran.unwrap_or_else(|panic| panic::resume_unwind(panic)))
            }

            /// An anonymous mapping: a guard page, `len` usable bytes from
            /// `base`, a guard page.
            struct Mapped {
                start: *mut libc::c_void,
                whole: usize,
                base: *mut u8,
                len: usize,
            }

            impl Mapped {
                fn new(size: usize) -> io::Result<Mapped> {
                    // SAFETY: sysconf only reads a constant.
                    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
                        n if n > 0 => n as usize,
                        _ => 4096,
                    };
                    let too_big = || io::Error::other(format!("a stack of {size} bytes"));
                    let len = size
                        .max(1)
                        .checked_next_multiple_of(page)
                        .ok_or_else(too_big)?;
                    let whole = len.checked_add(2 * page).ok_or_else(too_big)?;
                    // Reserved, not committed: pages cost memory only once the
                    // analysis touches them, as deep as the code nests.
                    #[cfg(target_os = "linux")]
                    let flags = libc::MAP_PRIVATE
                        | libc::MAP_ANONYMOUS
                        | libc::MAP_NORESERVE
                        | libc::MAP_STACK;
                    #[cfg(not(target_os = "linux"))]
                    let flags = libc::MAP_PRIVATE | libc::MAP_ANON;
                    // SAFETY: a new anonymous mapping; nothing else is touched.
                    let start =
                        unsafe { libc::mmap(ptr::null_mut(), whole, libc::PROT_NONE, flags, -1, 0) };
                    if start == libc::MAP_FAILED {
                        return Err(io::Error::last_os_error());
                    }
                    // From here on, dropping `mapped` unmaps it.
                    let mapped = Mapped {
                        start,
                        whole,
                        // SAFETY: `page` bytes in, inside the mapping.
                        base: unsafe { start.cast::<u8>().add(page) },
                        len,
                    };
                    // SAFETY: the usable part of the mapping made above.
                    let opened = unsafe {
                        libc::mprotect(
                            mapped.base.cast(),
                            len,
                            libc::PROT_READ | libc::PROT_WRITE,
                        )
                    };
                    if opened != 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(mapped)
                }
            }

            impl Drop for Mapped {
                fn drop(&mut self) {
                    // SAFETY: the whole mapping made in `new`, no longer in use.
                    unsafe { libc::munmap(self.start, self.whole) };
                }
            }
        }
    }
    no {
        mod imp {
            use std::io;

            /// Where the stack cannot be switched: a thread of its own.
            pub(crate) fn run_on<R: Send, F: FnOnce() -> R + Send>(
                size: usize,
                f: F,
            ) -> io::Result<R> {
                std::thread::scope(|scope| {
                    let handle = std::thread::Builder::new()
                        .name("script-analysis".to_owned())
                        .stack_size(size)
                        .spawn_scoped(scope, f)?;
                    Ok(handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::run_on;

    /// Recurses `depth` times with a 1 KiB frame, so it needs about `depth`
    /// KiB of stack; returns `depth`.
    #[inline(never)]
    fn deep(depth: u32) -> u32 {
        let frame = std::hint::black_box([0u8; 1024]);
        if depth == 0 {
            return 0;
        }
        let below = deep(depth - 1);
        // Still in use after the call, so every level keeps its frame.
        std::hint::black_box(&frame);
        below + 1
    }

    #[test]
    fn runs_code_deeper_than_this_threads_stack_and_returns_its_value() {
        // A test thread has 2 MiB; 16 MiB of recursion (more in a debug
        // build, whose frames are larger) would overflow it.
        let depth = 16 * 1024;
        assert_eq!(run_on(256 << 20, || deep(depth)).unwrap(), depth);
        // Twice on one thread: the first stack was unmapped and nothing of it
        // is left in the way.
        assert_eq!(run_on(256 << 20, || deep(depth)).unwrap(), depth);
    }

    #[test]
    fn a_panic_inside_continues_outside_with_its_message() {
        // Room for the default panic hook, which may print a backtrace.
        let caught = std::panic::catch_unwind(|| {
            run_on(16 << 20, || -> u32 { panic!("inside the mapped stack") })
        })
        .unwrap_err();
        assert_eq!(
            caught.downcast_ref::<&str>(),
            Some(&"inside the mapped stack")
        );
        // And the thread goes on on its own stack.
        assert_eq!(run_on(1 << 20, || deep(100)).unwrap(), 100);
    }

    #[test]
    fn a_stack_that_cannot_be_mapped_is_an_error_not_a_panic() {
        let e = run_on(usize::MAX - 4096, || 1).unwrap_err();
        assert!(!e.to_string().is_empty());
        let e = run_on(usize::MAX / 2, || 1).unwrap_err();
        assert!(!e.to_string().is_empty(), "{e}");
    }
}
