// CPUs, priorities and preemption (model/preempt.hpp) as the driver applies them to scenarios:
// only the full search may run them, and the reduction is off (said in the figures).
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

// The rw_semaphore scenario with an RT writer: verified on the hand model, and the reduction is
// turned off (said in the figures) rather than applied.
TEST(PreemptScenario, TheRtWriterScenarioVerifiesUnreduced) {
  RunResult r = run("full", true);
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats.count("reduction off: tasks on CPUs"), 1u);
}
