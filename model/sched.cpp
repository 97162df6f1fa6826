#include "model/sched.hpp"

task_struct* g_tasks = nullptr;
int g_task_count = 0;
bool g_task_lifetimes = false;

uint32_t tasks_seen_exited() {
  uint32_t seen = 0;
  for (int i = 0; i < g_task_count; i++)
    if (&g_tasks[i] != current_task() && g_tasks[i].exited.load(rl::mo_seq_cst, $)) seen |= 1u << i;
  return seen;
}

bool task_seen_exited(task_struct* t) { return t->exited.load(rl::mo_seq_cst, $) != 0; }
