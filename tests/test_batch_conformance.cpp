// The model's batch functions against the Z3 transition system: they agree on every layout,
// and the check does see a bug put into the C code alone.
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <set>
#include "proofs/prover.hpp"
#include "model/batch_states.hpp"
#include "verify/checks/batch_conformance.hpp"
#include "verify/search/scenario.hpp"

TEST(BatchConformance, ModelAgreesWithZ3OnEveryLayoutUpTo10VmasOver3Files) {
  ConformanceResult r = check_batch_conformance(10, 3);
  EXPECT_TRUE(r.conforms) << r.message;
  EXPECT_GT(r.layouts, 100000);
  EXPECT_GT(r.steps, r.layouts);  // an add and a final for each non-empty layout
}

// Bugs in model/vma_batch.hpp that the Z3 system does not have: the check must fail.
class BatchConformanceMutant : public testing::TestWithParam<std::string> {};
TEST_P(BatchConformanceMutant, CBugIsFound) {
  ConformanceResult r = check_batch_conformance(9, 2, GetParam());
  EXPECT_FALSE(r.conforms) << GetParam();
  EXPECT_NE(r.message.find("is not what the Z3 system's step gives"), std::string::npos) << r.message;
}
INSTANTIATE_TEST_SUITE_P(All, BatchConformanceMutant,
                         testing::Values("batch_no_flush_on_other_file", "batch_no_flush_when_full",
                                         "batch_anon_vma_added", "batch_final_forgotten",
                                         "batch_process_without_lock"),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

// Every vocabulary variable means the same in the exploration's snapshots (model/mm.cpp) as in
// the recording the conformance check compares with the Z3 system: on single-group teardowns,
// the states explored are exactly the states of the recorded teardown.
class VocabularyMeaning : public testing::TestWithParam<std::string> {};
TEST_P(VocabularyMeaning, ExploredStatesAreTheRecordedTeardownsStates) {
  RunOptions o;
  RunResult r = run_scenario(*find_scenario(GetParam()), o, false);
  ASSERT_EQ(r.result, "verified") << r.message;
  std::vector<BatchSnapshot> explored = explored_batch_states();
  ASSERT_FALSE(explored.empty());
  auto key = [](const BatchSnapshot& s) { return std::string(reinterpret_cast<const char*>(&s), sizeof s); };
  std::set<std::string> from_model, recorded;
  for (const BatchSnapshot& s : explored) from_model.insert(key(s));
  for (const BatchSnapshot& s : batch_trail(explored[0])) recorded.insert(key(s));
  EXPECT_EQ(from_model, recorded) << from_model.size() << " explored, " << recorded.size() << " recorded";
}
INSTANTIATE_TEST_SUITE_P(All, VocabularyMeaning,
                         testing::Values("teardown_vs_rmap_walk", "teardown_vs_truncate", "teardown_two_files",
                                         "teardown_batch_overflow"),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

// A spec violated by an explored state (here a false one: the batch of 10 same-file VMAs
// reaches 4) gives a counterexample with a trace, and that trace replays to the same step.
TEST(ExploredStateSpec, ViolationHasATraceAndReplays) {
  const std::string dir = testing::TempDir() + "vmaverify_small_batch_specs";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/at_most_three.smt2") << "(assert (<= count 3))\n";
  set_specs_dir(dir);
  RunOptions o;
  RunResult r = run_scenario(*find_scenario("teardown_batch_overflow"), o, false);
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, "spec");
  EXPECT_EQ(r.violated_spec, "at_most_three");
  EXPECT_NE(r.message.find("violates at_most_three"), std::string::npos) << r.message;
  ASSERT_FALSE(r.events.empty());
  EXPECT_GE(r.failing_step, 0);
  ASSERT_FALSE(r.state.empty());
  RunOptions again;
  again.initial_state = r.state;
  again.budget = 1;
  again.search = SearchSpec();
  RunResult replayed = run_scenario(*find_scenario("teardown_batch_overflow"), again, true);
  set_specs_dir("");
  EXPECT_EQ(replayed.kind, "spec");
  EXPECT_EQ(replayed.failing_step, r.failing_step);
}
