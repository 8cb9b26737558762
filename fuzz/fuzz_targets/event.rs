#![no_main]
// The `event` target of `pace_hook::fuzz`; see docs/FUZZING.md.
libfuzzer_sys::fuzz_target!(|data: &[u8]| pace_hook::fuzz::event(data));
