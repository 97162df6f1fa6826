// CPUs, priorities and preemption (model/preempt.hpp), enforced by the full search's scheduler:
// small programs whose verdict depends on each rule (preempt_programs.cpp), searched by the
// engine alone. The scenarios' side is test_preempt_scenarios.cpp.
#include <gtest/gtest.h>
#include "tests/reduction/preempt_programs.hpp"

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

// A task asleep in schedule() gives its CPU up, even a SCHED_FIFO one.
TEST(Preempt, AnRtTaskAsleepGivesItsCpuUp) {
  RunResult r = search_preempt_program("rt_sleeper");
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_GT(r.iterations, 1u);
}
