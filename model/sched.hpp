// Tasks, sleeping and wake-ups: set_current_state / schedule / wake_up_process, the wake_q
// (kernel/sched/core.c, include/linux/sched/wake_q.h) and the task reference count
// (include/linux/sched/task.h), under the kernel's rules rather than idealised ones:
//  - a wake_q_add of a task already on some waker's wake_q does nothing: the wake-up then comes
//    when that other waker runs wake_up_q, earlier or later than this waker expects;
//  - schedule() may return without any wake-up (spurious and stale wake-ups are real), up to a
//    per-task budget so that the search stays finite (task_struct::spurious_wakeups_left);
//  - a task drops its own reference at do_exit; touching it after the last put is use-after-free;
//  - a task in a killable wait may receive a fatal signal (below).
#pragma once
#include "model/check.hpp"
#include "model/call_chain.hpp"
#include "model/mutants.hpp"
#include "model/preempt.hpp"
#include "model/rl_env.hpp"
#include "model/trace_names.hpp"
#include "model/zeroed_atomic.hpp"

struct task_struct;

// struct wake_q_node (include/linux/sched/wake_q.h): non-NULL next means "queued somewhere".
struct wake_q_node {
  zeroed_atomic<wake_q_node*> next;  // starts NULL with no scheduling point
};
inline wake_q_node* const WAKE_Q_TAIL = reinterpret_cast<wake_q_node*>(1);  // end of a wake_q list

// A task's run state is an auto-reset Relacy event: "set" is TASK_RUNNING.
// A wake-up that nobody sends leaves the sleeper blocked, which Relacy reports as a deadlock.
struct task_struct {
  int pid = 0;  // the Relacy thread index; ghost identity for lock ownership
  rl::generic_event runnable;
  wake_q_node wake_q;
  // refcount_t usage: the task's own reference plus wakers'. Plain: its updates are not what
  // races; what races is a waker reaching the task after its exit, and that happens at the
  // wake_q claim and the wake-up, both instrumented, where the check below looks.
  int usage = 1;
  bool ghost_freed = false;       // the last reference was dropped
  int spurious_wakeups_left = 0;  // how many more times schedule() may return unwoken
  bool killable_sleep = false;    // the state set last is TASK_KILLABLE (TASK_WAKEKILL)
  bool fatal_signal = false;      // a SIGKILL is pending (it stays pending)
  // Its exit as other tasks' RCU read-side sections see it (task lifetimes, below): set by
  // do_exit, read when a section begins.
  zeroed_atomic<int> exited;

  task_struct() {
    runnable.init(false, false, RL_INFO);
    announce_sync_primitive(&runnable);
  }
  void name(int id, int spurious_wakeups) {
    pid = id;
    spurious_wakeups_left = spurious_wakeups;
    trace_name(this, "task %d", id);
    trace_name(relacy_impl_address(&runnable), "run state of task %d", id);
    trace_name(&wake_q.next, "wake_q.next of task %d", id);
    trace_name(&exited, "exit of task %d", id);
  }
  ~task_struct() { runnable.deinit(RL_INFO); }
};

// The scenario's tasks, indexed by Relacy thread, and how many; set by the scenario base each
// iteration.
extern task_struct* g_tasks;
extern int g_task_count;
inline task_struct* current_task() { return &g_tasks[rl::thread_index()]; }

// get_task_struct (include/linux/sched/task.h): refcount_inc.
inline void get_task_struct(task_struct* t) {
  VM_CHECK(!t->ghost_freed, "use-after-free", "get_task_struct on task %d after its last reference was dropped (it exited)",
           t->pid);
  t->usage++;
}

// put_task_struct (include/linux/sched/task.h): refcount_dec_and_test; the last one frees.
inline void put_task_struct(task_struct* t) {
  VM_CHECK(!t->ghost_freed, "use-after-free", "put_task_struct on task %d, already freed", t->pid);
  if (--t->usage == 0) t->ghost_freed = true;  // __put_task_struct: from here on the task_struct is gone
}

// Task lifetimes under RCU. An exited task's task_struct is freed an RCU grace period after its
// exit (release_task -> put_task_struct_rcu_user -> delayed_put_task_struct, kernel/exit.c), so
// code that reaches a task through a pointer it holds no reference on (rwsem.c's optimistic
// spinning: the task in sem->owner, through owner_on_cpu) may look at it only inside an RCU
// read-side section (a preempt_disable() or raw_spin_lock section) that began before the exit.
// Modelled with a grace period that ends as soon as it may: a section that begins after the exit
// sees the task freed, and sees everything the task stored before it (the grace period's
// ordering: the exit is a seq_cst store, a section's start seq_cst loads). A section that began
// before the exit, with no grace period ended in between, is the same run with the exit moved
// after the section's start, which the search explores too. Each do_exit stores to the task's
// `exited` word and each section start that matters loads every other task's
// (tasks_seen_exited), so that the search orders exits against those section starts. That costs
// steps, so it is done only while g_task_lifetimes is set: in kernel mode, where the tree's
// rwsem.c reads sem->owner's task (model/kshim/rwsem.h says which sections).
// The hand model never reaches a task through a pointer it holds no reference on.
extern bool g_task_lifetimes;
// The other tasks that have exited, each read from its `exited` word: bit i for task i.
uint32_t tasks_seen_exited();
// Whether task t has exited, read from its `exited` word.
bool task_seen_exited(task_struct* t);

// do_exit (kernel/exit.c), as far as wake-ups and task lifetimes care: the task drops its own
// reference.
inline void do_exit() {
  task_struct* t = current_task();
  if (g_task_lifetimes) t->exited.store(1, rl::mo_seq_cst, $);
  put_task_struct(t);
}

// set_current_state(TASK_UNINTERRUPTIBLE) (include/linux/sched.h): from now on a wake-up is remembered.
// It is smp_store_mb(): the full barrier orders the state store before the caller's condition load.
inline void set_current_state_uninterruptible() {
  current_task()->killable_sleep = false;
  current_task()->runnable.reset(RL_INFO);
  rl::atomic_thread_fence(rl::memory_order_seq_cst);
}
// set_current_state(TASK_KILLABLE): the same, and a fatal signal may end the sleep.
inline void set_current_state_killable() {
  set_current_state_uninterruptible();
  current_task()->killable_sleep = true;
}

// A fatal signal: kill(2) of the task by someone else sets SIGKILL pending
// (kernel/signal.c: complete_signal) and wakes it from a TASK_KILLABLE sleep (signal_wake_up).
// Who sends it does not matter to the semaphore, only when the waiter sees it: at any
// signal_pending_state(TASK_KILLABLE, current) check of a killable wait, or as the wake-up of
// its sleep; each is an explored choice, and once pending the signal stays pending. Only a task
// that waits killably (down_read_killable, down_write_killable) can be signalled, so scenarios
// that do not pay nothing.
inline bool signal_pending_killable(rl::debug_info_param info) {
  task_struct* t = current_task();
  if (!t->fatal_signal && rl::rand(2) == 1) {
    t->fatal_signal = true;
    model_row(info, "a fatal signal (SIGKILL) arrives for task %d", t->pid);
  }
  return t->fatal_signal;
}

// schedule() (kernel/sched/core.c): sleep unless woken since set_current_state. A sleeping task
// can also come back with no wake-up meant for it (a spurious or stale one): a nondeterministic
// choice while the task's budget lasts, so every wait loop must recheck its condition.
inline void schedule() {
  KERNEL_FRAME();
  task_struct* t = current_task();
  if (t->killable_sleep && !t->fatal_signal && rl::rand(2) == 1) {  // signal_wake_up
    t->fatal_signal = true;
    model_row(RL_INFO, "a fatal signal (SIGKILL) wakes task %d", t->pid);
    return;
  }
  if (t->spurious_wakeups_left > 0 && rl::rand(2) == 1) {
    t->spurious_wakeups_left--;
    return;
  }
  // Asleep while the wait blocks: the task gives its CPU up (model/preempt.hpp).
  g_cpus.in_schedule[rl::thread_index()] = true;
  t->runnable.wait(false, false, RL_INFO);
  g_cpus.in_schedule[rl::thread_index()] = false;
}

// wake_up_process() (kernel/sched/core.c): try_to_wake_up() issues a full barrier before it
// reads the sleeper's state, pairing with set_current_state's.
inline void wake_up_process(task_struct* t) {
  KERNEL_FRAME();
  VM_CHECK(!t->ghost_freed, "use-after-free", "wake_up_process on task %d after its last reference was dropped",
           t->pid);
  rl::atomic_thread_fence(rl::memory_order_seq_cst);
  t->runnable.set(RL_INFO);
}

// DEFINE_WAKE_Q (include/linux/sched/wake_q.h). The list is context-local (only its waker reads
// or writes the links), so it is kept as a plain array; what other wakers see of a queued node
// is only that its next is non-NULL, which the claim below sets.
struct wake_q_head {
  task_struct* queued[8];
  int n = 0;
};
inline bool wake_q_empty(const wake_q_head* q) { return q->n == 0; }

// __wake_q_add (kernel/sched/core.c): claim the task's node, or leave the wake-up to whoever
// already queued it. smp_mb__before_atomic() orders the caller's grant before the claim.
inline bool __wake_q_add(wake_q_head* head, task_struct* task) {
  KERNEL_FRAME();
  wake_q_node* node = &task->wake_q;
  if (!mutant(Mutant::wake_q_add_no_barrier)) rl::atomic_thread_fence(rl::memory_order_seq_cst);
  wake_q_node* expected = nullptr;
  bool claimed = node->next.compare_exchange_strong(expected, WAKE_Q_TAIL, rl::mo_relaxed, $, rl::mo_relaxed, $);
  // Checked right after the cmpxchg: the state of the task at the moment it was touched.
  VM_CHECK(!task->ghost_freed, "use-after-free", "wake_q_add touched task %d after its last reference was dropped",
           task->pid);
  if (!claimed) return false;
  // The model's bound on one waker's list (the kernel's is unbounded): a scenario with more tasks must raise it.
  RL_ASSERT(head->n < (int)(sizeof head->queued / sizeof head->queued[0]));
  head->queued[head->n++] = task;  // *head->lastp = node; head->lastp = &node->next
  return true;
}

// wake_q_add (kernel/sched/core.c): a reference for the wake-up, taken only if this waker queued it.
inline void wake_q_add(wake_q_head* head, task_struct* task) {
  KERNEL_FRAME();
  if (__wake_q_add(head, task)) get_task_struct(task);
}

// wake_q_add_safe (kernel/sched/core.c): the caller already holds a reference; drop it if the
// task was queued by someone else.
inline void wake_q_add_safe(wake_q_head* head, task_struct* task) {
  KERNEL_FRAME();
  if (!__wake_q_add(head, task)) put_task_struct(task);
}

// wake_up_q (kernel/sched/core.c): the node is released (next = NULL) before the wake-up, so
// the task can be queued again, by anyone, from that point.
inline void wake_up_q(wake_q_head* head) {
  KERNEL_FRAME();
  for (int i = 0; i < head->n; i++) {
    task_struct* task = head->queued[i];
    if (!mutant(Mutant::wake_up_q_release_after_wake))
      task->wake_q.next.store(nullptr, rl::mo_relaxed, $);  // WRITE_ONCE, pairs with the cmpxchg
    wake_up_process(task);
    if (mutant(Mutant::wake_up_q_release_after_wake)) task->wake_q.next.store(nullptr, rl::mo_relaxed, $);
    put_task_struct(task);
  }
  head->n = 0;
}
