#![no_main]
// The `duration` target of `pace_hook::fuzz`; see docs/FUZZING.md.
libfuzzer_sys::fuzz_target!(|data: &[u8]| pace_hook::fuzz::duration(data));
