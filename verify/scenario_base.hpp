// Common base of every scenario: Relacy test suite with one kernel task per thread.
#pragma once
#include "model/sched.hpp"
#include "verify/explore.hpp"

template <class Derived, rl::thread_id_t N>
struct scenario_base : rl::test_suite<Derived, N> {
  task_struct tasks[N];

  scenario_base() {
    for (rl::thread_id_t i = 0; i < N; i++) tasks[i].pid = (int)i;
    g_tasks = tasks;
  }
  void before() { exploration::iteration_begin(); }
};
