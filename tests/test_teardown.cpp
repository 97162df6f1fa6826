// The VMA teardown model: every teardown scenario verifies (batched and the unbatched baseline),
// every batch mutant is caught with its kind, and the lock figures are the ones the patch promises.
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

TEST(Teardown, CorrectModelStatesSatisfyEverySpec) {
  for (const std::string& n : teardown_scenarios()) {
    RunResult r = run(n);
    EXPECT_GT(r.stats["batch_states"], 0) << n << ": no batch state recorded";
    EXPECT_EQ(r.violated_spec, "") << n << ": " << r.message;
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
