// CPUs, priorities and preemption (model/preempt.hpp) as the driver applies them to scenarios:
// only the full search may run them, plain or reduced.
#include <gtest/gtest.h>
#include "verify/search/scenario.hpp"

namespace {
RunResult run(const std::string& search, bool reduce) {
  const Scenario* s = find_scenario("rwsem_rt_writer");
  EXPECT_NE(s, nullptr);
  RunOptions o;
  std::string err;
  EXPECT_TRUE(SearchSpec::parse(search, &o.search, &err)) << err;
  o.reduce = reduce;
  return run_scenario(*s, o, true);
}
}  // namespace

// Only the full search keeps tasks off CPUs: any other is refused, not run.
TEST(PreemptScenario, OtherSearchesAreRefused) {
  for (const char* search : {"bound:2", "random:100"}) {
    RunResult r = run(search, false);
    EXPECT_EQ(r.result, "error") << search;
    EXPECT_EQ(r.kind, "bad search") << search;
    EXPECT_NE(r.message.find("use --search full"), std::string::npos) << r.message;
  }
}

// The rw_semaphore scenario with an RT writer: verified on the hand model, reduced (the steps
// read and write their CPUs' state: shard_scheduler.hpp, add_cpu_footprint) as plain, in no more
// iterations (11 each: one CPU leaves little to reduce), and its mutant caught reduced as plain.
TEST(PreemptScenario, TheRtWriterScenarioIsReduced) {
  RunResult plain = run("full", false), reduced = run("full", true);
  EXPECT_EQ(plain.result, "verified") << plain.kind << ": " << plain.message;
  EXPECT_EQ(reduced.result, "verified") << reduced.kind << ": " << reduced.message;
  EXPECT_EQ(reduced.stats.count("reduction: blocked iterations"), 1u);
  EXPECT_LE(reduced.iterations, plain.iterations);
  const Scenario* s = find_scenario("rwsem_rt_writer");
  ASSERT_NE(s, nullptr);
  RunOptions o;
  std::string err;
  ASSERT_TRUE(SearchSpec::parse("full", &o.search, &err)) << err;
  o.mutant = "write_trylock_preemptible";
  for (bool reduce : {false, true}) {
    o.reduce = reduce;
    RunResult m = run_scenario(*s, o, true);
    EXPECT_EQ(m.result, "counterexample") << "reduce " << reduce;
    EXPECT_EQ(m.kind, "livelock") << "reduce " << reduce << ": " << m.message;
  }
}
