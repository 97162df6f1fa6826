// CPUs, priorities and preemption (kernel/sched/core.c, include/linux/preempt.h) for the
// scenarios that place their tasks on CPUs (scenario_base::cpu_of). Each such task is pinned to
// one CPU and is SCHED_NORMAL or SCHED_FIFO (rt_task); on each CPU one task at a time runs.
//  - The running task keeps its CPU while it sleeps in nothing: a task spinning for a raw
//    spinlock or the osq, or around a spin loop, still has it. Only sleeping in schedule(),
//    ending, or being preempted hands it over.
//  - Preemption is CONFIG_PREEMPT's (full preemption; Debian's kernels boot into it with
//    preempt=full, CONFIG_PREEMPT_DYNAMIC): at any point where the running task's
//    preempt_count is 0, any task of its CPU may take over, unless the running task is
//    SCHED_FIFO (one RT priority: an RT task gives the CPU up only by sleeping or ending).
//    preempt_disable() and raw_spin_lock*() raise the count.
//  - An RT task preempts as soon as it may in the kernel; here it also may later (a superset
//    of the kernel's runs: a bug is never hidden, though a reported run may have an RT task
//    wait longer than the kernel would let it).
//  - An RT task that spins while the task it waits for is preempted on its own CPU spins for
//    ever (the kernel ends it only by RT throttling, 950 ms of every second): a `livelock`.
//    The scheduler (verify/search/shard_scheduler.hpp) counts each spin turn that no other
//    task could follow; the model's spin loops report the livelock on the second.
// Not modelled: migration between CPUs, several RT priorities, deadline tasks, interrupts,
// CONFIG_PREEMPT_VOLUNTARY / NONE (whose runs are a subset of these).
#pragma once
#include <cstdint>
#include "model/rl_env.hpp"

struct cpu_world {
  static constexpr int kMaxTasks = 32;
  bool active = false;       // the scenario places its tasks on CPUs
  int cpu_of[kMaxTasks];     // each task's CPU
  bool rt[kMaxTasks];        // SCHED_FIFO
  // Per iteration; per task unless said.
  int preempt_count[kMaxTasks];
  bool in_schedule[kMaxTasks];  // inside schedule(): asleep while its thread is blocked
  int curr[kMaxTasks];          // per CPU: the task that has it, -1 for none
  uint32_t on_cpu = 0;          // published by the scheduler: tasks running on their CPU
  uint32_t preempted = 0;       // runnable tasks kept off their CPU
  int lone_spins[kMaxTasks];    // consecutive spin turns with no other task able to run
  // The tasks whose owner_on_cpu the running step read (bit t for task t), for the reduction
  // (verify/search/shard_scheduler.hpp), which takes and clears it as the step ends.
  uint32_t on_cpu_read = 0;

  void iteration_begin() {
    for (int i = 0; i < kMaxTasks; i++) {
      preempt_count[i] = 0;
      in_schedule[i] = false;
      curr[i] = -1;
      lone_spins[i] = 0;
    }
    on_cpu = preempted = on_cpu_read = 0;
  }
  // Whether tasks a and b share a CPU.
  bool same_cpu(int a, int b) const { return cpu_of[a] == cpu_of[b]; }
};
extern cpu_world g_cpus;

// preempt_disable / preempt_enable (include/linux/preempt.h) on the calling task's count; an
// underflow is a `kernel warning` cited at info (the preempt_enable that caused it).
void preempt_count_add(int delta, rl::debug_info_param info);
// preempt_disable() ... preempt_enable() around a scope.
struct preempt_disabled {
  explicit preempt_disabled(rl::debug_info_param info) : info_(info) { preempt_count_add(1, info); }
  ~preempt_disabled() { preempt_count_add(-1, info_); }
  const rl::debug_info info_;
};
// rt_task(p) (include/linux/sched/rt.h): task pid is SCHED_FIFO. Never outside the scenarios that
// place their tasks on CPUs.
inline bool task_is_rt(int pid) { return g_cpus.active && pid >= 0 && pid < cpu_world::kMaxTasks && g_cpus.rt[pid]; }
// owner_on_cpu(task) (include/linux/sched.h): the task runs on its CPU now.
inline bool task_on_cpu(int pid) {
  if (pid < 0 || pid >= cpu_world::kMaxTasks) return false;
  g_cpus.on_cpu_read |= 1u << pid;
  return (g_cpus.on_cpu >> pid) & 1u;
}
// need_resched() of a SCHED_FIFO task: a task of higher priority waits for its CPU; with one RT
// priority, never.
inline bool rt_task_need_resched() { return false; }
// A spin loop's turn, before its yield: a `livelock` check failure when the calling task has
// spun twice with no other task able to run while one of its own CPU is preempted (see above).
// `where` names the loop in the message.
void cpu_spin_turn(const char* where, rl::debug_info_param info);
