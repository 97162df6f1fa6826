#include "model/preempt.hpp"
#include "model/check.hpp"

cpu_world g_cpus;

void preempt_count_add(int delta, rl::debug_info_param info) {
  int& c = g_cpus.preempt_count[rl::thread_index() % cpu_world::kMaxTasks];
  c += delta;
  if (c < 0) vm_fail("kernel warning", info, "preempt_count underflow in task %d (preempt_enable without preempt_disable)",
                     (int)rl::thread_index());
  // preempt_enable() to 0 is a preemption point (preempt_schedule() when a task of the CPU waits
  // for it): a scheduling point, so that a task of the CPU can take over right there, even when
  // the task's next access to shared state is inside its next preempt_disable().
  if (c == 0 && delta < 0 && g_cpus.active) {
    model_row(info, "preempt_enable(): a preemption point");
    rl::ctx().sched();
  }
}

void cpu_spin_turn(const char* where, rl::debug_info_param info) {
  if (!g_cpus.active) return;
  const int me = (int)rl::thread_index();
  if (g_cpus.lone_spins[me] < 2) return;
  int victim = -1;
  for (int t = 0; t < cpu_world::kMaxTasks && victim < 0; t++)
    if (t != me && ((g_cpus.preempted >> t) & 1u) && g_cpus.same_cpu(t, me)) victim = t;
  vm_fail("livelock", info,
          "task %d (%s, CPU %d) spins in %s and nothing else can run: task %d, preempted on CPU %d, "
          "cannot run while it spins",
          me, g_cpus.rt[me] ? "SCHED_FIFO" : "SCHED_NORMAL", g_cpus.cpu_of[me], where, victim, g_cpus.cpu_of[me]);
}
