// CPUs, priorities and preemption (model/preempt.hpp), enforced by the full search's scheduler:
// small programs whose verdict depends on each rule (preempt_programs.cpp), and the rw_semaphore
// scenario with an RT writer.
#include <gtest/gtest.h>
#include "tests/reduction/preempt_programs.hpp"
#include "verify/search/scenario.hpp"

TEST(Preempt, AnRtSpinnerThatKeepsItsCpusOtherTaskOffIsALivelock) {
  RunResult r = search_preempt_program("rt_spinner_same_cpu");
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, "livelock") << r.message;
  EXPECT_NE(r.message.find("task 1 (SCHED_FIFO, CPU 0) spins in the test's spin"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("task 0, preempted on CPU 0"), std::string::npos) << r.message;
}

TEST(Preempt, AnRtSpinnerOnAnotherCpuOrANormalOneIsNoLivelock) {
  RunResult other_cpu = search_preempt_program("rt_spinner_other_cpu");
  EXPECT_EQ(other_cpu.result, "verified") << other_cpu.kind << ": " << other_cpu.message;
  RunResult normal = search_preempt_program("normal_spinner_same_cpu");
  EXPECT_EQ(normal.result, "verified") << normal.kind << ": " << normal.message;
}

TEST(Preempt, NoTaskOfTheCpuRunsInsidePreemptDisable) {
  RunResult same = search_preempt_program("reader_same_cpu");
  EXPECT_EQ(same.result, "verified") << same.kind << ": " << same.message;
  RunResult other = search_preempt_program("reader_other_cpu");
  EXPECT_EQ(other.result, "counterexample");
  EXPECT_EQ(other.kind, "preempted") << other.message;
}

TEST(Preempt, PreemptEnableIsAPreemptionPoint) {
  RunResult r = search_preempt_program("rt_at_preempt_enable");
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, "preempted") << r.message;
}

// Only the full search keeps tasks off CPUs: any other is refused, not run.
TEST(Preempt, OtherSearchesAreRefused) {
  RunResult r = search_preempt_program("rt_spinner_same_cpu", "bound:2");
  EXPECT_EQ(r.result, "error");
  EXPECT_EQ(r.kind, "bad search");
  EXPECT_NE(r.message.find("use --search full"), std::string::npos) << r.message;
}

// The rw_semaphore scenario with an RT writer: verified on the hand model, and the reduction is
// turned off (said in the figures) rather than applied.
TEST(Preempt, TheRtWriterScenarioVerifiesUnreduced) {
  const Scenario* s = find_scenario("rwsem_rt_writer");
  ASSERT_NE(s, nullptr);
  RunOptions o;
  o.reduce = true;
  RunResult r = run_scenario(*s, o, false);
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats.count("reduction off: tasks on CPUs"), 1u);
}
