// Small programs for tests/reduction/test_preempt.cpp (Relacy's headers stay out of the test
// file, whose GoogleTest macros they would break): CPUs, priorities and preemption
// (model/preempt.hpp), enforced by the full search's scheduler. Searched by the engine alone
// (no model, no driver), so that tests/reduction/seeded_bugs.py can build them with a bug in it.
#include "tests/reduction/preempt_programs.hpp"
#include "model/check.hpp"
#include "model/preempt.hpp"
#include "verify/search/explore.hpp"
namespace {

// A test program: a Relacy suite whose tasks have CPUs and priorities, and no twins.
template <class Derived>
struct cpu_program : rl::test_suite<Derived, 2> {
  static constexpr int twin_of(rl::thread_id_t) { return -1; }
  static constexpr bool rt_task(rl::thread_id_t) { return false; }
};

// Task 1 spins until task 0 sets a flag. Task 0 is SCHED_NORMAL on CPU 0; task 1's CPU and
// priority are the parameters.
template <int SpinnerCpu, bool SpinnerRt>
struct spin_on_flag : cpu_program<spin_on_flag<SpinnerCpu, SpinnerRt>> {
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
struct reads_inside_preempt_disable : cpu_program<reads_inside_preempt_disable<ReaderCpu>> {
  rl::atomic<int> x;
  static constexpr int cpu_of(rl::thread_id_t i) { return i == 1 ? ReaderCpu : 0; }
  reads_inside_preempt_disable() { x.store(0, rl::mo_relaxed, $); }
  void thread(unsigned i) {
    if (i == 0) {
      preempt_count_add(1, $);
      x.store(1, rl::mo_seq_cst, $);
      x.store(2, rl::mo_seq_cst, $);
      preempt_count_add(-1, $);
      return;
    }
    VM_CHECK(x.load(rl::mo_seq_cst, $) != 1, "preempted", "task 1 ran inside task 0's preempt_disable()");
  }
};

// A SCHED_FIFO task of CPU 0 may take the CPU at task 0's preemption point (preempt_enable to 0)
// even when task 0's next shared access is inside its next preempt_disable(): it sees the 2.
struct preempts_at_preempt_enable : cpu_program<preempts_at_preempt_enable> {
  rl::atomic<int> x;
  static constexpr int cpu_of(rl::thread_id_t) { return 0; }
  static constexpr bool rt_task(rl::thread_id_t i) { return i == 1; }
  preempts_at_preempt_enable() { x.store(0, rl::mo_relaxed, $); }
  void thread(unsigned i) {
    if (i == 0) {
      for (int v = 1; v <= 3; v++) {
        preempt_count_add(1, $);
        x.store(v, rl::mo_seq_cst, $);
        preempt_count_add(-1, $);
      }
      return;
    }
    VM_CHECK(x.load(rl::mo_seq_cst, $) != 2, "preempted", "task 1 ran between the second and third section");
  }
};

// Task 1 (SCHED_FIFO, CPU 0) sleeps until task 0 (CPU 0) sets a flag and wakes it. Sleeping
// gives the CPU up, as model/sched.hpp's schedule() does (in_schedule around the blocked wait),
// so task 0 runs and the program ends; an RT sleeper that kept its CPU would be a deadlock.
struct rt_sleeper_gives_cpu_up : cpu_program<rt_sleeper_gives_cpu_up> {
  rl::atomic<int> flag;
  rl::generic_event woken;
  static constexpr int cpu_of(rl::thread_id_t) { return 0; }
  static constexpr bool rt_task(rl::thread_id_t i) { return i == 1; }
  void before() {
    flag.store(0, rl::mo_relaxed, $);
    woken.init(false, false, RL_INFO);
  }
  void after() { woken.deinit(RL_INFO); }
  void thread(unsigned i) {
    if (i == 0) {
      flag.store(1, rl::mo_seq_cst, $);
      woken.set(RL_INFO);
      return;
    }
    while (!flag.load(rl::mo_seq_cst, $)) {
      g_cpus.in_schedule[1] = true;
      woken.wait(false, false, RL_INFO);
      g_cpus.in_schedule[1] = false;
    }
  }
};

// The full search of the engine (verify/search/shard_scheduler.hpp), unreduced, with the
// program's CPUs and priorities. The history is kept, so that a failure's message (a model
// check's "KIND: detail") is in Relacy's report; the programs are a few iterations long.
template <class Suite>
RunResult search() {
  const exploration::cpus_scope<Suite> cpus;
  rl::ostringstream out, progress;
  rl::test_params p;
  p.search_type = rl::sched_full;
  p.output_stream = &out;
  p.progress_stream = &progress;
  p.collect_history = true;
  std::string state;
  const rl::test_result_e r = exploration::run_with<Suite>(p, &state);
  RunResult res;
  res.iterations = p.stop_iteration;
  if (r == rl::test_result_success) {
    res.result = "verified";
    return res;
  }
  res.result = "counterexample";
  // The first line reads "RESULT (KIND: detail)" for a model check, else Relacy's result.
  std::string first(out.str().c_str());
  first = first.substr(0, first.find('\n'));
  const size_t open = first.find(" ("), colon = first.find(": ", open);
  if (r == rl::test_result_user_assert_failed && open != std::string::npos && colon != std::string::npos) {
    res.kind = first.substr(open + 2, colon - open - 2);
    res.message = first.substr(colon + 2, first.size() - colon - 3);
  } else {
    res.kind = rl::test_result_str(r);
    res.message = first;
  }
  return res;
}

}  // namespace

RunResult search_preempt_program(const std::string& program) {
  if (program == "rt_spinner_same_cpu") return search<spin_on_flag<0, true>>();
  if (program == "rt_spinner_other_cpu") return search<spin_on_flag<1, true>>();
  if (program == "normal_spinner_same_cpu") return search<spin_on_flag<0, false>>();
  if (program == "reader_same_cpu") return search<reads_inside_preempt_disable<0>>();
  if (program == "reader_other_cpu") return search<reads_inside_preempt_disable<1>>();
  if (program == "rt_at_preempt_enable") return search<preempts_at_preempt_enable>();
  if (program == "rt_sleeper") return search<rt_sleeper_gives_cpu_up>();
  RunResult r;
  r.result = "error";
  r.message = "no such program: " + program;
  return r;
}
