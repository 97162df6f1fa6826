// A libFuzzer target: built once per parser, VMAVERIFY_FUZZ_TARGET naming its function.
#include "fuzz/fuzz_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return VMAVERIFY_FUZZ_TARGET(data, size); }
