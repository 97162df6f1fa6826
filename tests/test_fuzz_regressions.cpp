// Every input a fuzzer found a crash, hang or sanitizer report with (tests/data/fuzz/TARGET/),
// and the seed corpus, run through the same target functions as the fuzzers (fuzz/).
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "fuzz/fuzz_inputs.hpp"

namespace {

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    closedir(d);
  }
  return out;
}

int feed(int (*target)(const uint8_t*, size_t), const std::vector<std::string>& dirs) {
  int n = 0;
  for (const std::string& dir : dirs)
    for (const std::string& f : files_in(dir)) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string data = ss.str();
      SCOPED_TRACE(f);
      EXPECT_EQ(target(reinterpret_cast<const uint8_t*>(data.data()), data.size()), 0);
      n++;
    }
  return n;
}

const std::string kData = VMAVERIFY_TESTDATA;
const std::string kSource = VMAVERIFY_SOURCE;

}  // namespace

TEST(FuzzRegressions, Specs) {
  EXPECT_GE(feed(fuzz_spec, {kData + "/fuzz/spec", kData + "/hostile/spec", kSource + "/proofs/specs"}), 20);
}
TEST(FuzzRegressions, Maps) { EXPECT_GE(feed(fuzz_maps, {kData + "/fuzz/maps", kData}), 3); }
TEST(FuzzRegressions, Traces) { EXPECT_GE(feed(fuzz_trace, {kData + "/fuzz/trace", kSource + "/fuzz/seeds/trace"}), 1); }
TEST(FuzzRegressions, CommandLines) { EXPECT_GE(feed(fuzz_cli, {kData + "/fuzz/cli", kSource + "/fuzz/seeds/cli"}), 5); }
