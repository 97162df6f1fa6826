// Small programs for tests/reduction/test_preempt.cpp (Relacy's headers stay out of the test
// file, whose GoogleTest macros they would break): CPUs, priorities and preemption
// (model/preempt.hpp), enforced by the full search's scheduler.
#include "tests/reduction/preempt_programs.hpp"
#include "model/preempt.hpp"
#include "verify/search/scenario_base.hpp"
namespace {

// Task 1 spins until task 0 sets a flag. Task 0 is SCHED_NORMAL on CPU 0; task 1's CPU and
// priority are the parameters.
template <int SpinnerCpu, bool SpinnerRt>
struct spin_on_flag : scenario_base<spin_on_flag<SpinnerCpu, SpinnerRt>, 2> {
  rl::atomic<int> flag;
  static constexpr int cpu_of(rl::thread_id_t i) { return i == 1 ? SpinnerCpu : 0; }
  static constexpr bool rt_task(rl::thread_id_t i) { return i == 1 && SpinnerRt; }
  spin_on_flag() { flag.store(0, rl::mo_relaxed, $); }
  void thread(unsigned i) {
    if (i == 0) {
      flag.store(1, rl::mo_release, $);
      return;
    }
    while (!flag.load(rl::mo_acquire, $)) {
      cpu_spin_turn("the test's spin", $);
      rl::yield(1, $);
    }
  }
};

// Task 0 stores 1 then 2 with preemption disabled around both; task 1 must never see the 1
// when it shares task 0's CPU.
template <int ReaderCpu>
struct reads_inside_preempt_disable : scenario_base<reads_inside_preempt_disable<ReaderCpu>, 2> {
  rl::atomic<int> x;
  static constexpr int cpu_of(rl::thread_id_t i) { return i == 1 ? ReaderCpu : 0; }
  reads_inside_preempt_disable() { x.store(0, rl::mo_relaxed, $); }
  void thread(unsigned i) {
    if (i == 0) {
      preempt_count_add(1);
      x.store(1, rl::mo_seq_cst, $);
      x.store(2, rl::mo_seq_cst, $);
      preempt_count_add(-1);
      return;
    }
    VM_CHECK(x.load(rl::mo_seq_cst, $) != 1, "preempted", "task 1 ran inside task 0's preempt_disable()");
  }
};

// A SCHED_FIFO task of CPU 0 may take the CPU at task 0's preemption point (preempt_enable to 0)
// even when task 0's next shared access is inside its next preempt_disable(): it sees the 2.
struct preempts_at_preempt_enable : scenario_base<preempts_at_preempt_enable, 2> {
  rl::atomic<int> x;
  static constexpr int cpu_of(rl::thread_id_t) { return 0; }
  static constexpr bool rt_task(rl::thread_id_t i) { return i == 1; }
  preempts_at_preempt_enable() { x.store(0, rl::mo_relaxed, $); }
  void thread(unsigned i) {
    if (i == 0) {
      for (int v = 1; v <= 3; v++) {
        preempt_count_add(1);
        x.store(v, rl::mo_seq_cst, $);
        preempt_count_add(-1);
      }
      return;
    }
    VM_CHECK(x.load(rl::mo_seq_cst, $) != 2, "preempted", "task 1 ran between the second and third section");
  }
};

template <class Suite>
RunResult search(const char* name, const std::string& search = "full") {
  Scenario s{name, "test program", search, &exploration::explore<Suite>};
  RunOptions o;
  std::string err;
  if (!SearchSpec::parse(search, &o.search, &err)) {
    RunResult r;
    r.result = "error";
    r.message = err;
    return r;
  }
  return s.run(s, o);
}

}  // namespace

RunResult search_preempt_program(const std::string& program, const std::string& search_kind) {
  if (program == "rt_spinner_same_cpu") return search<spin_on_flag<0, true>>(program.c_str(), search_kind);
  if (program == "rt_spinner_other_cpu") return search<spin_on_flag<1, true>>(program.c_str(), search_kind);
  if (program == "normal_spinner_same_cpu") return search<spin_on_flag<0, false>>(program.c_str(), search_kind);
  if (program == "reader_same_cpu") return search<reads_inside_preempt_disable<0>>(program.c_str(), search_kind);
  if (program == "reader_other_cpu") return search<reads_inside_preempt_disable<1>>(program.c_str(), search_kind);
  if (program == "rt_at_preempt_enable") return search<preempts_at_preempt_enable>(program.c_str(), search_kind);
  RunResult r;
  r.result = "error";
  r.message = "no such program: " + program;
  return r;
}
