#![no_main]
// The `state_files` target of `pace_hook::fuzz`; see docs/FUZZING.md.
libfuzzer_sys::fuzz_target!(|data: &[u8]| pace_hook::fuzz::state_files(data));
