// Tasks and sleeping: set_current_state / schedule / wake_up_process (kernel/sched/core.c).
#pragma once
#include "model/rl_env.hpp"
#include "model/trace_names.hpp"

// A task's run state is an auto-reset Relacy event: "set" is TASK_RUNNING.
// A wake-up that nobody sends leaves the sleeper blocked, which Relacy reports as a deadlock.
struct task_struct {
  int pid = 0;  // the Relacy thread index; ghost identity for lock ownership
  rl::generic_event runnable;

  task_struct() { runnable.init(false, false, RL_INFO); }
  void name(int id) {
    pid = id;
    trace_name(this, "task %d", id);
    trace_name(relacy_impl_address(&runnable), "run state of task %d", id);
  }
  ~task_struct() { runnable.deinit(RL_INFO); }
};

// The scenario's tasks, indexed by Relacy thread; set by the scenario base each iteration.
extern task_struct* g_tasks;
inline task_struct* current_task() { return &g_tasks[rl::thread_index()]; }

// set_current_state(TASK_UNINTERRUPTIBLE) (include/linux/sched.h): from now on a wake-up is remembered.
// It is smp_store_mb(): the full barrier orders the state store before the caller's condition load.
inline void set_current_state_uninterruptible() {
  current_task()->runnable.reset(RL_INFO);
  rl::atomic_thread_fence(rl::memory_order_seq_cst);
}

// schedule() (kernel/sched/core.c): sleep unless woken since set_current_state.
inline void schedule() { current_task()->runnable.wait(false, false, RL_INFO); }

// wake_up_process() (kernel/sched/core.c): try_to_wake_up() issues a full barrier before it
// reads the sleeper's state, pairing with set_current_state's.
inline void wake_up_process(task_struct* t) {
  rl::atomic_thread_fence(rl::memory_order_seq_cst);
  t->runnable.set(RL_INFO);
}

// DEFINE_WAKE_Q / wake_q_add / wake_up_q (kernel/sched/core.c): wake-ups deferred past wait_lock.
// Simplified: the kernel's wake_q_add skips a task already queued by another waker (who then
// wakes it later); here every waker wakes, so that delayed-wake-up path is not explored.
struct wake_q_head {
  task_struct* tasks[8];
  int n = 0;
};
inline void wake_q_add(wake_q_head* q, task_struct* t) { q->tasks[q->n++] = t; }
inline bool wake_q_empty(const wake_q_head* q) { return q->n == 0; }
inline void wake_up_q(wake_q_head* q) {
  for (int i = 0; i < q->n; i++) wake_up_process(q->tasks[i]);
  q->n = 0;
}
