// The same command twice gives the same iterations and results: exploration is
// deterministic (Relacy's schedulers, random search seeded by the iteration), and so are the
// proofs' verdicts. Seconds may differ, nothing else.
#include <string>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "tests/run_binary.hpp"

namespace {

nlohmann::json without_seconds(const std::string& out) {
  nlohmann::json all = nlohmann::json::array();
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    if (end > start) {
      nlohmann::json j = nlohmann::json::parse(out.substr(start, end - start));
      j.erase("seconds");
      all.push_back(j);
    }
    start = end + 1;
  }
  return all;
}

void expect_same_twice(const std::string& args, int status) {
  BinaryRun a = run_vmaverify(args + " --json"), b = run_vmaverify(args + " --json");
  EXPECT_EQ(a.status, status) << args << ": " << a.err;
  EXPECT_EQ(b.status, status) << args << ": " << b.err;
  EXPECT_EQ(without_seconds(a.out), without_seconds(b.out)) << args;
  EXPECT_FALSE(without_seconds(a.out).empty()) << args;
}

}  // namespace

TEST(Determinism, SameIterationsAndResultsTwice) {
  expect_same_twice("run rwsem_two_writers --quiet", 0);
  expect_same_twice("run teardown_vs_rmap_walk --quiet", 0);
  expect_same_twice("run rwsem_readers_writer --search random:3000 --quiet", 3);
  expect_same_twice("run teardown_batch_overflow --mutant batch_no_flush_when_full --quiet", 1);
  expect_same_twice("run rwsem_two_writers --mutant up_write_relaxed --quiet", 1);
  expect_same_twice("prove " VMAVERIFY_SOURCE "/proofs/specs/count_bounded.smt2", 0);
}
