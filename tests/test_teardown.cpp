// The VMA teardown model: every teardown scenario verifies (batched and the unbatched baseline),
// every batch mutant is caught with its kind, and the lock figures are the ones the patch promises.
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>
#include "model/mutants.hpp"
#include "verify/search/scenario.hpp"

static RunResult run(const std::string& scenario, const std::string& mutant = "none", bool unbatched = false) {
  const Scenario* s = find_scenario(scenario);
  EXPECT_NE(s, nullptr) << scenario;
  RunOptions o;
  o.mutant = mutant;
  o.unbatched = unbatched;
  return run_scenario(*s, o, false);
}

static std::vector<std::string> teardown_scenarios() {
  std::vector<std::string> names;
  for (const Scenario& s : all_scenarios())
    if (s.figures) names.push_back(s.name);
  return names;
}

TEST(Teardown, AtLeastSixScenariosUnderFullSearch) {
  int full = 0;
  for (const std::string& n : teardown_scenarios()) full += find_scenario(n)->search == "full";
  EXPECT_GE(full, 6);
}

class TeardownScenario : public testing::TestWithParam<std::string> {};
TEST_P(TeardownScenario, VerifiedBatched) {
  RunResult r = run(GetParam());
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats["write_locks_explored"], r.stats["write_locks_batched"]);
  EXPECT_LE(r.stats["write_locks_batched"], r.stats["write_locks_unbatched"]);
}
INSTANTIATE_TEST_SUITE_P(All, TeardownScenario, testing::ValuesIn(teardown_scenarios()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

// Only the scenarios that have an unbatched baseline: no test exists just to be skipped.
static std::vector<std::string> scenarios_with_baseline() {
  std::vector<std::string> names;
  for (const std::string& n : teardown_scenarios())
    if (find_scenario(n)->baseline) names.push_back(n);
  return names;
}

class TeardownBaseline : public testing::TestWithParam<std::string> {};
TEST_P(TeardownBaseline, VerifiedUnbatched) {
  RunResult r = run(GetParam(), "none", true);
  EXPECT_EQ(r.variant, "unbatched");
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats["write_locks_explored"], r.stats["write_locks_unbatched"]);
}
INSTANTIATE_TEST_SUITE_P(All, TeardownBaseline, testing::ValuesIn(scenarios_with_baseline()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(Teardown, FiveVmaLibraryTakesTheLockOnceInsteadOfFiveTimes) {
  RunResult r = run("teardown_vs_rmap_walk");
  EXPECT_EQ(r.stats["write_locks_unbatched"], 5);
  EXPECT_EQ(r.stats["write_locks_batched"], 1);
  EXPECT_EQ(r.stats["write_locks_explored"], 1);
}

TEST(Teardown, FullBatchIsProcessedEveryEightVmas) {
  RunResult r = run("teardown_batch_overflow");
  EXPECT_EQ(r.stats["write_locks_unbatched"], 10);
  EXPECT_EQ(r.stats["write_locks_batched"], 2);
}

static std::vector<std::string> batch_mutants() {
  std::vector<std::string> names;
  for (const MutantInfo& m : all_mutants())
    if (std::string(m.caught_by).rfind("teardown_", 0) == 0) names.push_back(m.name);
  return names;
}

TEST(Teardown, AtLeastNineBatchMutants) { EXPECT_GE(batch_mutants().size(), 9u); }

class TeardownMutant : public testing::TestWithParam<std::string> {};
TEST_P(TeardownMutant, CaughtWithItsKind) {
  const MutantInfo* m = find_mutant(GetParam());
  ASSERT_NE(m, nullptr);
  RunResult r = run(m->caught_by, m->name);
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, m->kind) << r.message;
}
INSTANTIATE_TEST_SUITE_P(All, TeardownMutant, testing::ValuesIn(batch_mutants()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

// run(n) in a child process, as `all` runs each check: a search that follows a reduced search
// in one process once crashed inside Relacy (verify/README.md, "The kernel's own code": one
// search per process), which is not what is tested here.
// Returns "BATCH_STATES VIOLATED_SPEC: MESSAGE", or how the child died.
static std::string run_isolated(const std::string& n) {
  int fds[2];
  if (pipe(fds) != 0) return "no pipe";
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    RunResult r = run(n);
    std::string line = std::to_string(r.stats["batch_states"]) + " " + r.violated_spec + ": " + r.message;
    ssize_t ignored = write(fds[1], line.data(), line.size());
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t k; (k = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, (size_t)k);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "died (status " + std::to_string(status) + ")";
  return out;
}

TEST(Teardown, CorrectModelStatesSatisfyEverySpec) {
  for (const std::string& n : teardown_scenarios()) {
    const std::string got = run_isolated(n);
    const size_t space = got.find(' ');
    ASSERT_NE(space, std::string::npos) << n << ": " << got;
    EXPECT_GT(std::atol(got.c_str()), 0) << n << ": no batch state recorded";
    EXPECT_EQ(got.substr(space + 1, 2), ": ") << n << ": " << got;  // no violated spec
  }
}

// Mutants that break a batch invariant are caught by the spec files too, on the explored states.
TEST(Teardown, MutantStatesViolateTheirSpec) {
  const std::pair<const char*, const char*> cases[] = {
      {"batch_no_flush_on_other_file", "same_mapping"}, {"batch_no_flush_when_full", "count_bounded"},
      {"batch_anon_vma_added", nullptr},                {"batch_flush_compares_mapping", "same_mapping"},
      {"batch_final_forgotten", "exactly_once"},
  };
  for (const auto& c : cases) {
    const MutantInfo* m = find_mutant(c.first);
    RunResult r = run(m->caught_by, m->name);
    if (c.second)
      EXPECT_EQ(r.violated_spec, c.second) << c.first << ": " << r.message;
    else  // more than one spec speaks of anonymous VMAs; the first in file order is named
      EXPECT_NE(r.violated_spec, "") << c.first;
  }
}
