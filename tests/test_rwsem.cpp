// The faithful rw_semaphore: every rwsem scenario verifies exhaustively, every rwsem mutant is caught.
#include <gtest/gtest.h>
#include "model/mutants.hpp"
#include "verify/search/scenario.hpp"

static RunResult run(const std::string& scenario, const std::string& mutant = "none") {
  const Scenario* s = find_scenario(scenario);
  EXPECT_NE(s, nullptr) << scenario;
  RunOptions o;
  o.mutant = mutant;
  return run_scenario(*s, o, false);
}

class RwsemScenario : public testing::TestWithParam<const char*> {};
TEST_P(RwsemScenario, VerifiedUnderItsSearch) {
  RunResult r = run(GetParam());
  EXPECT_EQ(r.search, find_scenario(GetParam())->search);
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_GT(r.iterations, 1u);
}
INSTANTIATE_TEST_SUITE_P(All, RwsemScenario,
                         testing::Values("rwsem_two_writers", "rwsem_reader_writer", "rwsem_readers_writer",
                                         "rwsem_handoff"));

class RwsemMutant : public testing::TestWithParam<const char*> {};
TEST_P(RwsemMutant, CaughtWithItsKind) {
  const MutantInfo* m = find_mutant(GetParam());
  ASSERT_NE(m, nullptr);
  RunResult r = run(m->caught_by, m->name);
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, m->kind) << r.message;
  EXPECT_FALSE(r.history.empty());
  EXPECT_FALSE(r.state.empty());
}
INSTANTIATE_TEST_SUITE_P(All, RwsemMutant,
                         testing::Values("up_write_relaxed", "try_write_lock_clears_waiters",
                                         "read_fastpath_ignores_writer", "mark_wake_relaxed_grant",
                                         "up_read_no_wake", "reader_steal_ignores_handoff"));
