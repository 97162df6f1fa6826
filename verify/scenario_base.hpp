// Common base of every scenario: Relacy test suite with one kernel task per thread.
#pragma once
#include "model/sched.hpp"
#include "verify/explore.hpp"

// Constructed first of all (a base), so the previous iteration's names are gone before any
// object of this one registers.
struct trace_names_scope {
  trace_names_scope() { trace_names_reset(); }
};

template <class Derived, rl::thread_id_t N>
struct scenario_base : trace_names_scope, rl::test_suite<Derived, N> {
  task_struct tasks[N];

  scenario_base() {
    for (rl::thread_id_t i = 0; i < N; i++) tasks[i].name((int)i);
    g_tasks = tasks;
  }
  void before() { exploration::iteration_begin(); }
};
