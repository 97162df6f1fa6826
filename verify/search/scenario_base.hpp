// Common base of every scenario: Relacy test suite with one kernel task per thread.
#pragma once
#include "model/kernel_rwsem.hpp"
#include "model/lockdep.hpp"
#include "model/sched.hpp"
#include "verify/search/explore.hpp"

// Constructed first of all (a base), so the previous iteration's names and lock orders are
// gone before any object of this one registers or locks.
struct trace_names_scope {
  trace_names_scope() {
    trace_names_reset();
    lockdep_reset();
  }
};

template <class Derived, rl::thread_id_t N>
struct scenario_base : trace_names_scope, rl::test_suite<Derived, N> {
  task_struct tasks[N];
  // How many times each task's schedule() may return with no wake-up meant for it. Each one
  // multiplies the search (rwsem_two_writers: 0.4M iterations without, 7.3M with one), so a
  // scenario that explores them says so; the abstract semaphore never sleeps in schedule().
  static constexpr int spurious_wakeups = 0;
  // Symmetry: thread i's twin, an earlier thread that runs the same code on state that mirrors
  // i's (its own task, the same checks), or -1. Full search then lets i touch shared state only
  // after its twin has, halving the search for each twin (README, "Symmetry").
  static constexpr int twin_of(rl::thread_id_t) { return -1; }
  // CPUs and priorities (model/preempt.hpp): thread i's CPU, or -1 when the scenario does not
  // place its tasks on CPUs (then no task keeps another from running, and tasks are
  // SCHED_NORMAL); whether it is SCHED_FIFO. Such a scenario is searched in full only.
  static constexpr int cpu_of(rl::thread_id_t) { return -1; }
  static constexpr bool rt_task(rl::thread_id_t) { return false; }

  scenario_base() {
    for (rl::thread_id_t i = 0; i < N; i++) tasks[i].name((int)i, Derived::spurious_wakeups);
    g_tasks = tasks;
    g_task_count = (int)N;
    g_task_lifetimes = g_kernel_rwsem != nullptr;  // model/sched.hpp, task lifetimes
    // Every task starts preemptible: a run that ended inside a section (sleep-set blocked, or a
    // failure) must not leave its count to the next one, whatever the search.
    for (int& c : g_cpus.preempt_count) c = 0;
  }
  void before() { exploration::iteration_begin(); }
};
