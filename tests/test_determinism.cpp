// The same command twice gives the same iterations and results: exploration is
// deterministic (Relacy's schedulers, random search seeded by the iteration), and so are the
// proofs' verdicts. Seconds may differ, nothing else.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "tests/run_binary.hpp"
#include "verify/search/scenario.hpp"

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

// Searches one after another in one process give what each gives in a process of its own:
// nothing a search leaves behind (a completed reduced one above all, whose end once corrupted
// the next search) changes the next. The checks of `all`, `kernel` and these tests rely on it.
namespace {
struct Search {
  const char* scenario;
  const char* mutant;
  bool reduce;
  uint64_t budget;
};
std::string fresh_process_args(const Search& s) {
  std::string a = std::string("run ") + s.scenario + " --quiet --search full";
  if (std::string(s.mutant) != "none") a += std::string(" --mutant ") + s.mutant;
  if (s.reduce) a += " --reduce";
  if (s.budget) a += " --budget " + std::to_string(s.budget);
  return a;
}
}  // namespace


TEST(Determinism, SearchesInOneProcessAgreeWithSearchesAlone) {
  const Search searches[] = {
      {"rwsem_reader_writer", "none", true, 0},           // a reduced search that completes
      {"rwsem_agrees", "none", true, 0},                  // the same, on the teardown world
      {"rwsem_writers_reader", "none", false, 150000},    // plain, deep into the tree
      {"teardown_vs_rmap_walk", "none", false, 0},
      {"rwsem_handoff", "none", true, 0},
      {"rwsem_reader_writer", "up_read_no_wake", true, 0},  // a counterexample after them
      {"rwsem_rt_writer", "none", false, 0},
      {"teardown_two_processes", "none", false, 0},
  };
  for (const Search& s : searches) {
    RunOptions o;
    o.mutant = s.mutant;
    o.reduce = s.reduce;
    o.budget = s.budget;
    std::string err;
    ASSERT_TRUE(SearchSpec::parse("full", &o.search, &err)) << err;
    const Scenario* sc = find_scenario(s.scenario);
    ASSERT_NE(sc, nullptr) << s.scenario;
    const RunResult here = run_scenario(*sc, o, true);  // the search given, as --search full
    BinaryRun alone = run_vmaverify(fresh_process_args(s) + " --json");
    const nlohmann::json j = nlohmann::json::parse(alone.out.substr(0, alone.out.find('\n')), nullptr, false);
    ASSERT_TRUE(j.is_object()) << fresh_process_args(s) << ": " << alone.out << alone.err;
    EXPECT_EQ(here.result, j.value("result", "")) << s.scenario;
    EXPECT_EQ(here.kind, j.value("kind", "")) << s.scenario;
    // The command minimises a counterexample (more iterations); a verdict's count is the search's.
    if (here.result != "counterexample") {
      EXPECT_EQ(here.iterations, j.value("iterations", 0ull)) << s.scenario << " " << (s.reduce ? "reduced" : "plain");
    }
    EXPECT_EQ(here.message, j.value("message", "")) << s.scenario;
    for (const auto& [key, value] : here.stats) EXPECT_EQ(value, j.value(key, -1L)) << s.scenario << ": " << key;
  }
}

// The model's zero-initialised words are zeroed_atomic: Relacy's own kind,
// rl::generic_atomic<T, true>, makes a search depend on what its memory held before
// (model/zeroed_atomic.hpp). Only that header and the test that shows the defect name it.
TEST(Determinism, NoWordUsesRelacysZeroInitialisedAtomic) {
  namespace fs = std::filesystem;
  const fs::path root = VMAVERIFY_SOURCE;
  const std::set<std::string> allowed = {"model/zeroed_atomic.hpp", "tests/reduction/repeatable_programs.cpp",
                                         "tests/test_determinism.cpp"};
  int files = 0;
  for (const char* dir : {"model", "verify", "tests"})
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / dir)) {
      if (!e.is_regular_file()) continue;
      const std::string ext = e.path().extension().string();
      if (ext != ".hpp" && ext != ".cpp" && ext != ".h") continue;
      const std::string rel = fs::relative(e.path(), root).generic_string();
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      files++;
      if (allowed.count(rel)) continue;
      EXPECT_FALSE(std::regex_search(text.str(), std::regex(R"(generic_atomic<[^;>]*,\s*true\s*>)")))
          << rel << " names rl::generic_atomic<T, true>; use zeroed_atomic";
    }
  EXPECT_GT(files, 50);
}
