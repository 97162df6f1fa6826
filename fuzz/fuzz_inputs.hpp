// One function per parser of untrusted input, fed raw bytes: the bodies of the libFuzzer
// targets (fuzz_main.cpp) and of the regression test that replays their findings
// (tests/test_fuzz_regressions.cpp). Each must return normally for every input.
#pragma once
#include <cstddef>
#include <cstdint>

int fuzz_spec(const uint8_t* data, size_t size);   // spec files: limits, syntax, Z3's parse
int fuzz_maps(const uint8_t* data, size_t size);   // /proc/PID/maps text, then the teardown over it
int fuzz_trace(const uint8_t* data, size_t size);  // trace JSON, its search and state checks, then report's rows
int fuzz_cli(const uint8_t* data, size_t size);    // the command line: NUL-separated arguments, parsed only
