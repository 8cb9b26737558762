#![no_main]
// The `tab_context` target of `pace_hook::fuzz`; see docs/FUZZING.md.
libfuzzer_sys::fuzz_target!(|data: &[u8]| pace_hook::fuzz::tab_context(data));
