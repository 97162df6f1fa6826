// The kernel's rw_semaphore: kernel/locking/rwsem.c (v6.11), function by function.
// Simplifications, each also stated where it is made:
//  - optimistic spinning (rwsem_optimistic_spin) is reduced to the lock steal it can end in: a
//    writer may (nondeterministically) make one rwsem_try_write_lock_unqueued attempt before
//    queueing; spinning on the owner and repeated attempts are not modelled (performance only);
//  - sem->owner is not modelled; the one decision that reads it is a nondeterministic choice;
//  - the waiter timeout (RWSEM_WAIT_TIMEOUT, ~4 ms) has or has not expired: a nondeterministic choice;
//  - rwsem_spin_on_owner after a handoff is one look at the count: OWNER_NULL when no lock is held;
//  - no RT tasks; signals only as fatal signals to killable waits (model/sched.hpp); no lockdep
//    beyond the ghost owner record.
// The waiter lives on the sleeping task's stack: it is constructed when the slow path queues and
// destroyed when it returns, so a waker that touches it later is reported as use-after-free.
#pragma once
#include "model/mutants.hpp"
#include "model/call_chain.hpp"
#include "model/rwsem.hpp"
#include "model/zeroed_atomic.hpp"

// The count word (kernel/locking/rwsem.c).
constexpr long RWSEM_WRITER_LOCKED = 1L << 0;
constexpr long RWSEM_FLAG_WAITERS = 1L << 1;
constexpr long RWSEM_FLAG_HANDOFF = 1L << 2;
constexpr long RWSEM_FLAG_READFAIL = (long)(1UL << 63);
constexpr int RWSEM_READER_SHIFT = 8;
constexpr long RWSEM_READER_BIAS = 1L << RWSEM_READER_SHIFT;
constexpr long RWSEM_READER_MASK = ~(RWSEM_READER_BIAS - 1);
constexpr long RWSEM_WRITER_MASK = RWSEM_WRITER_LOCKED;
constexpr long RWSEM_LOCK_MASK = RWSEM_WRITER_MASK | RWSEM_READER_MASK;
constexpr long RWSEM_READ_FAILED_MASK =
    RWSEM_WRITER_MASK | RWSEM_FLAG_WAITERS | RWSEM_FLAG_HANDOFF | RWSEM_FLAG_READFAIL;
constexpr int MAX_READERS_WAKEUP = 0x100;

enum rwsem_waiter_type { RWSEM_WAITING_FOR_WRITE, RWSEM_WAITING_FOR_READ };
enum rwsem_wake_type { RWSEM_WAKE_ANY, RWSEM_WAKE_READERS, RWSEM_WAKE_READ_OWNED };

constexpr int RWSEM_MODEL_MAX_TASKS = 4;

struct rwsem_waiter {
  rl::atomic<task_struct*> task;  // a reader is granted the lock when this is cleared
  rwsem_waiter_type type = RWSEM_WAITING_FOR_READ;
  // Written under wait_lock, but the writer's slow path reads its own outside it (the kernel's
  // plain access): instrumented, relaxed, so that the race is explored.
  // Starts false without a scheduling point, as a stack variable's initialisation has none.
  zeroed_atomic<bool> handoff_set;
  // The waiter's list link while it is on rwsem_mark_wake's local wlist (list_move_tail);
  // instrumented so that reading it after the waiter is gone is seen.
  rl::var<rwsem_waiter*> wlist_next;
};

// sem->wait_list, a FIFO of waiters (list_add_tail / list_del), as one value.
struct rwsem_wait_list {
  rwsem_waiter* w[RWSEM_MODEL_MAX_TASKS] = {};
  int n = 0;
  void del(const rwsem_waiter* x) {
    int j = 0;
    for (int i = 0; i < n; i++)
      if (w[i] != x) w[j++] = w[i];
    n = j;
  }
};

struct rwsem_count_model final : rw_semaphore {
  rl::atomic<long> count;
  // sem->owner, in the scenarios that place their tasks on CPUs only (model/preempt.hpp): there
  // an RT writer's handoff spin turns on it (an owner preempted before it records itself looks
  // like one about to let go); elsewhere its one decision is an explored choice, and leaving it
  // out keeps those searches as they were. 0, a writer's task_struct, or a reader's with
  // RWSEM_READER_OWNED (bit 0); a reader's stays after up_read, as the kernel's does without
  // CONFIG_DEBUG_RWSEMS.
  rl::atomic<long> owner;
  static constexpr long RWSEM_READER_OWNED = 1;
  rl::mutex wait_lock;  // raw_spinlock_t: a blocking Relacy mutex, so waiting is not a livelock
  // wait_list and each waiter's handoff_set are only touched under wait_lock, which the kernel
  // asserts with lockdep_assert_held(&sem->wait_lock); the model checks that on a ghost owner and
  // keeps them plain, since instrumenting them multiplied the interleavings without new races to find.
  rwsem_wait_list wait_list_;
  int ghost_wait_lock_owner = -1;
  // The waiter lives on the sleeping task's stack: storage per task, with the waiter constructed
  // and destroyed around each slow path (Relacy reports an access to a destroyed one).
  alignas(rwsem_waiter) unsigned char waiter_storage[RWSEM_MODEL_MAX_TASKS][sizeof(rwsem_waiter)];
  int ghost_handoff_requester = -1;  // the waiter RWSEM_FLAG_HANDOFF was last set for (checker bookkeeping)
  // The requester left the queue on a fatal signal while others waited: the flag stays set
  // (rwsem_del_waiter clears it only with the queue) and whoever takes the lock next clears it.
  static constexpr int kHandoffOrphaned = -2;

  explicit rwsem_count_model(const char* n) : rw_semaphore(n) {
    count.store(0, rl::memory_order_relaxed);  // RWSEM_UNLOCKED_VALUE
    owner.store(0, rl::memory_order_relaxed);
    trace_name(&count, "count of %s", n);
    trace_name(&owner, "owner of %s", n);
    announce_sync_primitive(&wait_lock);
    trace_name(relacy_impl_address(&wait_lock), "wait_lock of %s", n);
    attach_kernel_rwsem(&count, &wait_lock);  // vmaverify kernel: the tree's rwsem.c on these
  }
  const char* model_kind() const override { return "faithful rw_semaphore (kernel/locking/rwsem.c)"; }

 protected:
  // __down_read (kernel/locking/rwsem.c). Each operation runs with preemption disabled, as the
  // kernel's do (preempt_disable() ... preempt_enable(): model/preempt.hpp).
  void __down_read() override {
    KERNEL_FRAME();
    long c;
    if (mutant(Mutant::read_trylock_preemptible)) {  // before 3f5245538a19
      if (rwsem_read_trylock(&c)) return;
      const preempt_disabled scope($);  // after the preemptible trylock
      rwsem_down_read_slowpath(c, false);  // after the preemptible trylock
      return;
    }
    const preempt_disabled scope($);
    if (!rwsem_read_trylock(&c)) rwsem_down_read_slowpath(c, false);
  }

  // __down_read_trylock (kernel/locking/rwsem.c)
  bool __down_read_trylock() override {
    KERNEL_FRAME();
    const preempt_disabled scope($);
    long tmp = count.load(rl::memory_order_relaxed);
    long failed = RWSEM_READ_FAILED_MASK;
    if (mutant(Mutant::read_trylock_ignores_handoff)) failed = RWSEM_WRITER_MASK;
    while (!(tmp & failed)) {
      if (count.compare_exchange_strong(tmp, tmp + RWSEM_READER_BIAS, rl::memory_order_acquire,
                                        rl::memory_order_relaxed)) {
        check_handoff(tmp, "__down_read_trylock");
        rwsem_acquire_read();  // the trylock took it
        return true;
      }
    }
    return false;
  }

  // __down_write_trylock (kernel/locking/rwsem.c): rwsem_write_trylock, no slow path.
  bool __down_write_trylock() override {
    KERNEL_FRAME();
    const preempt_disabled scope($);
    return rwsem_write_trylock();
  }

  // __up_read (kernel/locking/rwsem.c)
  void __up_read() override {
    KERNEL_FRAME();
    const preempt_disabled scope($);
    long tmp = count.fetch_add(-RWSEM_READER_BIAS, rl::memory_order_release) - RWSEM_READER_BIAS;
    rwsem_release_read();
    if ((tmp & (RWSEM_LOCK_MASK | RWSEM_FLAG_WAITERS)) == RWSEM_FLAG_WAITERS && !mutant(Mutant::up_read_no_wake))
      rwsem_wake();
  }

  // __down_write (kernel/locking/rwsem.c)
  void __down_write() override {
    KERNEL_FRAME();
    if (mutant(Mutant::write_trylock_preemptible)) {  // before 48dfb5d2560d
      if (rwsem_write_trylock()) return;
      const preempt_disabled scope($);
      rwsem_down_write_slowpath(false);
      return;
    }
    const preempt_disabled scope($);
    if (!rwsem_write_trylock()) rwsem_down_write_slowpath(false);
  }

  // __down_read_killable, __down_write_killable (kernel/locking/rwsem.c: __down_*_common with
  // TASK_KILLABLE): -EINTR when the slow path left the queue on a fatal signal (out_nolock).
  int __down_read_killable() override {
    KERNEL_FRAME();
    const preempt_disabled scope($);
    long c;
    if (rwsem_read_trylock(&c)) return 0;
    return rwsem_down_read_slowpath(c, true) ? 0 : -EINTR;
  }
  int __down_write_killable() override {
    KERNEL_FRAME();
    const preempt_disabled scope($);
    if (rwsem_write_trylock()) return 0;
    return rwsem_down_write_slowpath(true) ? 0 : -EINTR;
  }

  // __up_write (kernel/locking/rwsem.c)
  void __up_write() override {
    KERNEL_FRAME();
    const preempt_disabled scope($);
    rwsem_clear_owner();
    long tmp = mutant(Mutant::up_write_relaxed)
                   ? count.fetch_add(-RWSEM_WRITER_LOCKED, rl::memory_order_relaxed)
                   : count.fetch_add(-RWSEM_WRITER_LOCKED, rl::memory_order_release);
    rwsem_release_write();
    if (tmp & RWSEM_FLAG_WAITERS) rwsem_wake();
  }

 private:
  // rwsem_write_trylock (kernel/locking/rwsem.c): atomic_long_try_cmpxchg_acquire, relaxed on failure.
  bool rwsem_write_trylock() {
    KERNEL_FRAME();
    long tmp = 0;  // RWSEM_UNLOCKED_VALUE
    if (!count.compare_exchange_strong(tmp, RWSEM_WRITER_LOCKED, rl::memory_order_acquire, rl::memory_order_relaxed))
      return false;
    rwsem_acquire_write();
    rwsem_set_owner();
    return true;
  }

  // rwsem_set_owner, rwsem_clear_owner, rwsem_set_reader_owned (kernel/locking/rwsem.c): where
  // sem->owner is modelled (above).
  void set_owner_word(long v) {
    if (g_cpus.active) owner.store(v, rl::memory_order_relaxed);
  }
  void rwsem_set_owner() { set_owner_word((long)current_task()); }
  void rwsem_clear_owner() { set_owner_word(0); }
  void rwsem_set_reader_owned(int task) { set_owner_word((long)&g_tasks[task] | RWSEM_READER_OWNED); }

  // struct rwsem_waiter waiter; on the slow path's stack frame: constructed on entry...
  rwsem_waiter* waiter_enter(rwsem_waiter_type type) {
    int me = rl::thread_index();
    rwsem_waiter* w = construct_in<rwsem_waiter>(waiter_storage[me]);
    trace_name(&w->task, "waiter.task of task %d", me);
    trace_name(&w->handoff_set, "waiter.handoff_set of task %d", me);
    trace_name(&w->wlist_next, "waiter.list of task %d", me);
    w->task.store(current_task(), rl::memory_order_relaxed);
    w->type = type;
    return w;
  }
  // ...and gone when the slow path returns. The storage is cleared as well, since the compiler
  // may drop the destructor's own poisoning store (its lifetime ends there), and Relacy finds an
  // access to a destroyed object by that poisoning.
  void waiter_exit(rwsem_waiter* w) {
    w->~rwsem_waiter();
    std::memset(static_cast<void*>(w), 0, sizeof *w);
  }
  // raw_spin_lock_irq / raw_spin_unlock_irq on sem->wait_lock, with the ghost owner lockdep
  // checks; preemption is disabled while the task spins for it and holds it (model/preempt.hpp).
  void raw_spin_lock_irq() {
    KERNEL_FRAME();
    preempt_count_add(1, $);
    announce_blocking_lock();
    wait_lock.lock($);
    ghost_wait_lock_owner = rl::thread_index();
  }
  void raw_spin_unlock_irq() {
    KERNEL_FRAME();
    ghost_wait_lock_owner = -1;
    wait_lock.unlock($);
    preempt_count_add(-1, $);
  }
  rwsem_wait_list& wait_list() {
    VM_CHECK(ghost_wait_lock_owner == (int)rl::thread_index(), "lock not held",
             "wait_list of %s touched without its wait_lock", name);
    return wait_list_;
  }
  rwsem_wait_list list() { return wait_list(); }
  // A trace row with the queue as it now is, after each change to it or to a waiter's
  // handoff_set: "wait_list of A: [T1 writer (handoff_set), T2 reader]". Read without scheduling
  // points, and only while a trace is made (model_row).
  void wait_list_row(rl::debug_info_param info) {
    if (!model_rows_wanted()) return;
    char text[160];
    int used = std::snprintf(text, sizeof text, "wait_list of %s: [", name);
    for (int i = 0; i < wait_list_.n && used < (int)sizeof text; i++) {
      const rwsem_waiter* w = wait_list_.w[i];
      used += std::snprintf(text + used, sizeof text - used, "%sT%d %s%s", i ? ", " : "", waiter_owner(w),
                            w->type == RWSEM_WAITING_FOR_WRITE ? "writer" : "reader",
                            w->handoff_set.debug_value() ? " (handoff_set)" : "");
    }
    if (used < (int)sizeof text) std::snprintf(text + used, sizeof text - used, "]");
    model_row(info, "%s", text);
  }
  bool list_empty() { return list().n == 0; }
  rwsem_waiter* rwsem_first_waiter() { return list().w[0]; }

  // rt_or_dl_task(waiter->task): SCHED_FIFO in a scenario with CPUs (model/preempt.hpp).
  bool waiter_is_rt(const rwsem_waiter* w) const { return task_is_rt(waiter_owner(w)); }
  // time_after(jiffies, waiter->timeout): whether RWSEM_WAIT_TIMEOUT has passed is a nondeterministic choice.
  static bool rwsem_wait_timed_out() { return rl::rand(2) == 1; }

  // DESIGN invariant 7: a lock taken while RWSEM_FLAG_HANDOFF is set goes to the task that set it.
  void check_handoff(long observed, const char* path) {
    VM_CHECK(!(observed & RWSEM_FLAG_HANDOFF) || ghost_handoff_requester == (int)rl::thread_index() ||
                 ghost_handoff_requester == kHandoffOrphaned,
             "handoff",
             "thread %d took %s by %s while RWSEM_FLAG_HANDOFF hands it to thread %d", (int)rl::thread_index(),
             name, path, ghost_handoff_requester);
  }

  // rwsem_read_trylock (kernel/locking/rwsem.c)
  bool rwsem_read_trylock(long* cntp) {
    KERNEL_FRAME();
    *cntp = count.fetch_add(RWSEM_READER_BIAS, rl::memory_order_acquire) + RWSEM_READER_BIAS;
    long failed = RWSEM_READ_FAILED_MASK;
    if (mutant(Mutant::read_fastpath_ignores_writer)) failed &= ~RWSEM_WRITER_MASK;
    if (!(*cntp & failed)) {
      check_handoff(*cntp, "the read fast path");
      rwsem_acquire_read();
      rwsem_set_reader_owned(rl::thread_index());
      return true;
    }
    return false;
  }

  // rwsem_add_waiter (kernel/locking/rwsem.c): the caller sets RWSEM_FLAG_WAITERS.
  void rwsem_add_waiter(rwsem_waiter* waiter) {
    KERNEL_FRAME();
    rwsem_wait_list& l = wait_list();
    l.w[l.n++] = waiter;
    wait_list_row($);
  }

  // rwsem_del_wake_waiter (kernel/locking/rwsem.c): a signalled waiter leaves the queue; called
  // with wait_lock held, which it releases. When the first waiter leaves, the others may now be
  // able to take the lock or spin: they are woken.
  void rwsem_del_wake_waiter(rwsem_waiter* waiter) {
    KERNEL_FRAME();
    wake_q_head wake_q;  // wake_q_init
    bool first = rwsem_first_waiter() == waiter;
    if (!mutant(Mutant::out_nolock_stays_queued) && rwsem_del_waiter(waiter) && first &&
        !mutant(Mutant::out_nolock_wakes_nobody))
      rwsem_mark_wake(RWSEM_WAKE_ANY, &wake_q);
    if (ghost_handoff_requester == (int)rl::thread_index()) ghost_handoff_requester = kHandoffOrphaned;
    raw_spin_unlock_irq();
    if (!wake_q_empty(&wake_q)) wake_up_q(&wake_q);
  }

  // rwsem_del_waiter (kernel/locking/rwsem.c)
  bool rwsem_del_waiter(rwsem_waiter* waiter) {
    KERNEL_FRAME();
    rwsem_wait_list& l = wait_list();
    l.del(waiter);
    wait_list_row($);
    if (l.n != 0) return true;
    count.fetch_and(~(RWSEM_FLAG_HANDOFF | RWSEM_FLAG_WAITERS), rl::memory_order_relaxed);
    return false;
  }

  // rwsem_mark_wake (kernel/locking/rwsem.c): wake the writer at the head, or the queued readers.
  void rwsem_mark_wake(rwsem_wake_type wake_type, wake_q_head* wake_q) {
    KERNEL_FRAME();
    long oldcount, woken = 0, adjustment = 0;
    rwsem_waiter* waiter = rwsem_first_waiter();
    if (waiter->type == RWSEM_WAITING_FOR_WRITE) {
      if (wake_type == RWSEM_WAKE_ANY) wake_q_add(wake_q, waiter->task.load(rl::memory_order_relaxed));
      return;
    }
    if (count.load(rl::memory_order_relaxed) < 0) return;  // too many readers
    if (wake_type != RWSEM_WAKE_READ_OWNED) {
      adjustment = RWSEM_READER_BIAS;
      oldcount = count.fetch_add(adjustment, rl::memory_order_seq_cst);
      if (oldcount & RWSEM_WRITER_MASK) {
        if (rwsem_wait_timed_out()) {
          if (!(oldcount & RWSEM_FLAG_HANDOFF)) {
            adjustment -= RWSEM_FLAG_HANDOFF;
            ghost_handoff_requester = waiter_owner(waiter);
          }
          waiter->handoff_set.store(true, rl::mo_relaxed, $);
          wait_list_row($);
        }
        count.fetch_add(-adjustment, rl::memory_order_relaxed);
        return;
      }
      rwsem_set_reader_owned(waiter_owner(waiter));  // __rwsem_set_reader_owned(sem, waiter->task)
    }
    // Move up to MAX_READERS_WAKEUP readers (skipping writers) from the queue to wlist.
    rwsem_wait_list& l = wait_list();
    rwsem_wait_list wlist;
    for (int i = 0; i < l.n && woken < MAX_READERS_WAKEUP; i++) {
      if (l.w[i]->type == RWSEM_WAITING_FOR_WRITE) continue;
      woken++;
      wlist.w[wlist.n++] = l.w[i];
    }
    for (int i = 0; i < wlist.n; i++) {
      l.del(wlist.w[i]);
      wlist.w[i]->wlist_next($) = i + 1 < wlist.n ? wlist.w[i + 1] : nullptr;  // list_move_tail
    }
    if (wlist.n) wait_list_row($);

    adjustment = woken * RWSEM_READER_BIAS - adjustment;
    oldcount = count.load(rl::memory_order_relaxed);
    if (l.n == 0) {
      adjustment -= RWSEM_FLAG_WAITERS;
      if (oldcount & RWSEM_FLAG_HANDOFF) adjustment -= RWSEM_FLAG_HANDOFF;
    } else if (woken) {
      if (oldcount & RWSEM_FLAG_HANDOFF) adjustment -= RWSEM_FLAG_HANDOFF;
    }
    if (adjustment) count.fetch_add(adjustment, rl::memory_order_relaxed);

    // 2nd pass, list_for_each_entry_safe: the next waiter is read before this one is granted,
    // since a granted reader may return, and its waiter (on its stack) be gone, at once.
    rwsem_waiter* next = nullptr;
    for (rwsem_waiter* w = wlist.n ? wlist.w[0] : nullptr; w; w = next) {
      if (!mutant(Mutant::mark_wake_list_unsafe)) next = w->wlist_next($);
      task_struct* tsk = w->task.load(rl::memory_order_relaxed);
      // The mutant is the code before v5.0: grant first, then wake_q_add, which takes the reference.
      const bool ref_after_grant = mutant(Mutant::mark_wake_get_task_after_grant);
      if (!ref_after_grant) get_task_struct(tsk);
      if (mutant(Mutant::mark_wake_grant_after_wake_q_add)) wake_q_add_safe(wake_q, tsk);
      if (mutant(Mutant::mark_wake_relaxed_grant))
        w->task.store(nullptr, rl::memory_order_relaxed);
      else
        w->task.store(nullptr, rl::memory_order_release);  // smp_store_release: the grant
      if (ref_after_grant) wake_q_add(wake_q, tsk);
      else if (!mutant(Mutant::mark_wake_grant_after_wake_q_add)) wake_q_add_safe(wake_q, tsk);
      if (mutant(Mutant::mark_wake_list_unsafe)) next = w->wlist_next($);  // list_for_each_entry
    }
  }

  int waiter_owner(const rwsem_waiter* w) const {
    return (int)((reinterpret_cast<const unsigned char*>(w) - waiter_storage[0]) / sizeof(rwsem_waiter));
  }

  // rwsem_cond_wake_waiter (kernel/locking/rwsem.c)
  void rwsem_cond_wake_waiter(long c, wake_q_head* wake_q) {
    KERNEL_FRAME();
    if (c & RWSEM_WRITER_MASK) return;
    rwsem_mark_wake((c & RWSEM_READER_MASK) ? RWSEM_WAKE_READERS : RWSEM_WAKE_ANY, wake_q);
  }

  // rwsem_down_read_slowpath (kernel/locking/rwsem.c): false when a fatal signal ended a
  // killable wait without the lock (out_nolock).
  bool rwsem_down_read_slowpath(long c, bool killable) {
    KERNEL_FRAME();
    long adjustment = -RWSEM_READER_BIAS;
    long rcnt = c >> RWSEM_READER_SHIFT;
    wake_q_head wake_q;
    // sem->owner is not modelled: "the lock is likely owned by readers" is a nondeterministic choice.
    bool likely_reader_owned = rcnt > 1 && !(c & RWSEM_WRITER_LOCKED) && rl::rand(2) == 1;
    if (!likely_reader_owned) {
      long steal_blockers = RWSEM_WRITER_LOCKED | RWSEM_FLAG_HANDOFF;
      if (mutant(Mutant::reader_steal_ignores_handoff)) steal_blockers &= ~RWSEM_FLAG_HANDOFF;
      if (!(c & steal_blockers)) {  // reader optimistic lock stealing
        check_handoff(c, "reader lock stealing");
        rwsem_acquire_read();
        rwsem_set_reader_owned(rl::thread_index());
        if (rcnt == 1 && (c & RWSEM_FLAG_WAITERS)) {
          raw_spin_lock_irq();
          if (!list_empty()) rwsem_mark_wake(RWSEM_WAKE_READ_OWNED, &wake_q);
          raw_spin_unlock_irq();
          wake_up_q(&wake_q);
        }
        return true;
      }
    }
    rwsem_waiter* waiter = waiter_enter(RWSEM_WAITING_FOR_READ);

    raw_spin_lock_irq();
    if (list_empty()) {
      // Queue empty and no writer: the bias already in the count is the lock.
      if (!(count.load(rl::memory_order_relaxed) & RWSEM_WRITER_MASK)) {
        rl::atomic_thread_fence(rl::memory_order_acquire);  // smp_acquire__after_ctrl_dep
        rwsem_acquire_read();
        raw_spin_unlock_irq();
        waiter_exit(waiter);
        return true;
      }
      adjustment += RWSEM_FLAG_WAITERS;
    }
    rwsem_add_waiter(waiter);
    c = count.fetch_add(adjustment, rl::memory_order_seq_cst) + adjustment;  // atomic_long_add_return
    rwsem_cond_wake_waiter(c, &wake_q);
    raw_spin_unlock_irq();
    if (!wake_q_empty(&wake_q)) wake_up_q(&wake_q);

    for (;;) {  // wait to be given the lock
      set_current_state(killable);
      if (!waiter->task.load(rl::memory_order_acquire)) {  // pairs with rwsem_mark_wake's release
        rwsem_acquire_read();
        break;
      }
      if (killable && signal_pending_killable($)) {
        raw_spin_lock_irq();
        if (waiter->task.load(rl::memory_order_relaxed) || mutant(Mutant::killed_reader_ignores_grant)) {  // out_nolock
          rwsem_del_wake_waiter(waiter);
          waiter_exit(waiter);
          return false;
        }
        raw_spin_unlock_irq();  // granted meanwhile: ordered by wait_lock against rwsem_mark_wake
        rwsem_acquire_read();
        break;
      }
      schedule();
      if (mutant(Mutant::reader_wakeup_is_grant)) {  // any wake-up taken as the grant
        rwsem_acquire_read();
        break;
      }
    }
    waiter_exit(waiter);
    return true;
  }

  // rwsem_try_write_lock (kernel/locking/rwsem.c): called with wait_lock held.
  bool rwsem_try_write_lock(rwsem_waiter* waiter) {
    KERNEL_FRAME();
    rwsem_waiter* first = rwsem_first_waiter();
    long c = count.load(rl::memory_order_relaxed), nw;
    do {
      bool has_handoff = c & RWSEM_FLAG_HANDOFF;
      if (has_handoff) {
        if (mutant(Mutant::handoff_set_by_any_waiter)) {  // v5.19: only the first waiter goes on
          if (waiter != first) return false;
          waiter->handoff_set.store(true, rl::mo_relaxed, $);  // it inherits the bit
        }
        // Honour the handoff only when the first waiter set it.
        else if (first->handoff_set.load(rl::mo_relaxed, $) && waiter != first &&
                 !mutant(Mutant::try_write_lock_ignores_first_handoff))
          return false;
      }
      nw = c;
      if (c & RWSEM_LOCK_MASK) {
        // Only a waiter that timed out, or an RT one (rt_or_dl_task), sets handoff.
        if (has_handoff || (!waiter_is_rt(waiter) && !rwsem_wait_timed_out())) return false;
        nw |= RWSEM_FLAG_HANDOFF;
      } else {
        nw |= RWSEM_WRITER_LOCKED;
        nw &= ~RWSEM_FLAG_HANDOFF;
        if (list().n == 1 || mutant(Mutant::try_write_lock_clears_waiters)) nw &= ~RWSEM_FLAG_WAITERS;
      }
    } while (!count.compare_exchange_strong(c, nw, rl::memory_order_acquire, rl::memory_order_relaxed));

    if (nw & RWSEM_FLAG_HANDOFF) {
      // v5.19 marked the waiter that set the bit, first or not (the mutant).
      (mutant(Mutant::handoff_set_by_any_waiter) ? waiter : first)->handoff_set.store(true, rl::mo_relaxed, $);
      wait_list_row($);
      ghost_handoff_requester = waiter_owner(first);  // the lock is handed to the first waiter
      return false;
    }
    check_handoff(c, "rwsem_try_write_lock");
    rwsem_acquire_write();
    rwsem_set_owner();
    wait_list().del(waiter);  // list_del: the flags were updated by the cmpxchg above
    wait_list_row($);
    return true;
  }

  // rwsem_try_write_lock_unqueued (kernel/locking/rwsem.c): an optimistic spinner's lock steal.
  bool rwsem_try_write_lock_unqueued() {
    KERNEL_FRAME();
    long c = count.load(rl::memory_order_relaxed);
    while (!(c & (RWSEM_LOCK_MASK | RWSEM_FLAG_HANDOFF))) {
      if (count.compare_exchange_strong(c, c | RWSEM_WRITER_LOCKED, rl::memory_order_acquire,
                                        rl::memory_order_relaxed)) {
        check_handoff(c, "optimistic lock stealing");
        rwsem_acquire_write();
        rwsem_set_owner();
        return true;
      }
    }
    return false;
  }

  // rwsem_down_write_slowpath (kernel/locking/rwsem.c)
  // false when a fatal signal ended a killable wait without the lock (out_nolock).
  bool rwsem_down_write_slowpath(bool killable) {
    KERNEL_FRAME();
    // rwsem_can_spin_on_owner && rwsem_optimistic_spin: whether the owner is running on
    // another CPU is not modelled, so spinning happens or not nondeterministically.
    if (rl::rand(2) == 1 && rwsem_try_write_lock_unqueued()) return true;
    wake_q_head wake_q;
    rwsem_waiter* waiter = waiter_enter(RWSEM_WAITING_FOR_WRITE);

    raw_spin_lock_irq();
    rwsem_add_waiter(waiter);
    if (rwsem_first_waiter() != waiter) {
      rwsem_cond_wake_waiter(count.load(rl::memory_order_relaxed), &wake_q);
      if (!wake_q_empty(&wake_q)) {
        raw_spin_unlock_irq();
        wake_up_q(&wake_q);
        raw_spin_lock_irq();
      }
    } else {
      count.fetch_or(RWSEM_FLAG_WAITERS, rl::memory_order_relaxed);
    }

    set_current_state(killable);
    for (;;) {
      if (rwsem_try_write_lock(waiter)) break;
      raw_spin_unlock_irq();
      if (killable && signal_pending_killable($)) {  // out_nolock
        raw_spin_lock_irq();
        rwsem_del_wake_waiter(waiter);
        waiter_exit(waiter);
        return false;
      }
      // After setting the handoff bit, spin on the owner and, if it let go, try again at once
      // (goto trylock_again). handoff_set is read outside wait_lock, as the kernel does.
      if (waiter->handoff_set.load(rl::mo_relaxed, $) && rwsem_spin_on_owner() == OWNER_NULL) {
        if (g_cpus.active) {  // the retry is a spin loop's turn (model/preempt.hpp)
          cpu_spin_turn("rwsem_spin_on_owner (the handoff retry, goto trylock_again)", $);
          rl::yield(1, $);
        }
        if (mutant(Mutant::writer_handoff_retry_unlocked)) continue;  // trylock_again past the lock
      } else {
        schedule();
        set_current_state(killable);
      }
      raw_spin_lock_irq();  // trylock_again:
    }
    raw_spin_unlock_irq();
    waiter_exit(waiter);
    return true;
  }

  // set_current_state(state): TASK_KILLABLE or TASK_UNINTERRUPTIBLE.
  static void set_current_state(bool killable) {
    if (killable) set_current_state_killable();
    else set_current_state_uninterruptible();
  }

  enum owner_state { OWNER_NULL, OWNER_NOT_NULL };
  // rwsem_spin_on_owner (kernel/locking/rwsem.c). Where sem->owner is modelled: OWNER_NULL when
  // no owner is recorded; a reader owner ends the spin at once; on a writer owner, an RT task
  // spins while the owner runs on its CPU and stays the owner, a normal task looks once more
  // (need_resched, as in kernel mode). Elsewhere the spin ends in OWNER_NULL when the lock is free
  // at the moment it looks (any moment the scheduler picks).
  owner_state rwsem_spin_on_owner() {
    KERNEL_FRAME();
    if (!g_cpus.active)
      return (count.load(rl::memory_order_relaxed) & RWSEM_LOCK_MASK) ? OWNER_NOT_NULL : OWNER_NULL;
    const bool rt = task_is_rt(rl::thread_index());
    long o = owner.load(rl::memory_order_relaxed);
    int looks = 0;  // at the current owner
    while (o != 0 && !(o & RWSEM_READER_OWNED)) {  // a writer task owns it
      if ((!rt && looks++ > 0) || !task_on_cpu(reinterpret_cast<task_struct*>(o)->pid)) return OWNER_NOT_NULL;  // OWNER_NONSPINNABLE
      if (rt) {
        cpu_spin_turn("rwsem_spin_on_owner", $);  // cpu_relax()
        rl::yield(1, $);  // while the writer owner runs
      }
      const long now = owner.load(rl::memory_order_relaxed);
      if (now != o) looks = 0;  // a new owner: rwsem_owner_state() of it
      o = now;
    }
    return o == 0 ? OWNER_NULL : OWNER_NOT_NULL;
  }

  // rwsem_wake (kernel/locking/rwsem.c)
  void rwsem_wake() {
    KERNEL_FRAME();
    wake_q_head wake_q;
    raw_spin_lock_irq();
    if (!list_empty()) rwsem_mark_wake(RWSEM_WAKE_ANY, &wake_q);
    raw_spin_unlock_irq();
    wake_up_q(&wake_q);
  }
};
