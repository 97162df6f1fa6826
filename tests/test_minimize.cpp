// Shortest counterexamples: run keeps searching, bound 0 upward, for the same kind of failure
// with fewer preemptions, and its trace still replays.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "tests/run_binary.hpp"

TEST(Minimize, FewerPreemptionsSameKindAndItReplays) {
  const std::string trace = testing::TempDir() + "vmaverify_minimized.json";
  BinaryRun first = run_vmaverify("run teardown_vs_rmap_walk --mutant final_after_free_pgd_range --json --minimize-budget 0");
  ASSERT_EQ(first.status, 1) << first.err;
  const nlohmann::json f = nlohmann::json::parse(first.out);
  EXPECT_EQ(f.at("search"), "full");
  EXPECT_FALSE(f.contains("preemptions")) << "budget 0 keeps the first trace as it is";

  BinaryRun best = run_vmaverify("run teardown_vs_rmap_walk --mutant final_after_free_pgd_range --json --trace '" + trace + "'");
  ASSERT_EQ(best.status, 1) << best.err;
  const nlohmann::json b = nlohmann::json::parse(best.out);
  EXPECT_EQ(b.at("kind"), f.at("kind"));
  // No interleaving with 0 preemptions frees the tables under the walker: 1 is the fewest.
  EXPECT_EQ(b.at("preemptions"), 1);
  EXPECT_EQ(b.at("search"), "bound:1");
  EXPECT_GE(b.at("iterations").get<long>(), f.at("iterations").get<long>());

  BinaryRun replay = run_vmaverify("replay '" + trace + "' --json");
  EXPECT_EQ(replay.status, 1) << replay.out << replay.err;
  EXPECT_TRUE(nlohmann::json::parse(replay.out).at("reproduced").get<bool>());

  BinaryRun text = run_vmaverify("run teardown_vs_rmap_walk --mutant final_after_free_pgd_range --quiet");
  EXPECT_NE(text.out.find("fewest preemptions: 1 preemption (every interleaving with fewer was explored: no "
                          "use-after-free); the first counterexample found had 2 preemptions"),
            std::string::npos)
      << text.out;
}

// A budget too small for the bounded searches says so instead of claiming the fewest.
TEST(Minimize, BudgetRunsOutIsSaid) {
  BinaryRun r = run_vmaverify("run rwsem_reader_writer --mutant mark_wake_relaxed_grant --quiet --minimize-budget 3");
  ASSERT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("not shown to be the fewest"), std::string::npos) << r.out;
  expect_usage_error(run_vmaverify("run rwsem_two_writers --minimize-budget -1"), "negative minimize budget");
}

// bound:0, where the search for fewer preemptions starts, is a search of its own: no preemption
// at all; a trace found under it replays.
TEST(Minimize, BoundZeroSearchesAndReplays) {
  const std::string trace = testing::TempDir() + "vmaverify_bound0.json";
  BinaryRun r = run_vmaverify("run teardown_two_files --mutant batch_no_flush_on_other_file --search bound:0 --quiet "
                              "--trace '" + trace + "'");
  ASSERT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("(bound:0): counterexample (same mapping)"), std::string::npos) << r.out;
  EXPECT_EQ(run_vmaverify("replay '" + trace + "'").status, 1);
  EXPECT_EQ(run_vmaverify("run teardown_vs_rmap_walk --search bound:0 --quiet").status, 0);
  expect_usage_error(run_vmaverify("run teardown_vs_rmap_walk --search random:0"), "random:0");
}
