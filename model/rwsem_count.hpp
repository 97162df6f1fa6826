// The kernel's rw_semaphore: kernel/locking/rwsem.c (v6.11), function by function.
// Simplifications, each also stated where it is made:
//  - optimistic spinning (rwsem_optimistic_spin) is reduced to the lock steal it can end in: a
//    writer may (nondeterministically) make one rwsem_try_write_lock_unqueued attempt before
//    queueing; spinning on the owner and repeated attempts are not modelled (performance only);
//  - sem->owner is not modelled; the one decision that reads it is a nondeterministic choice;
//  - the waiter timeout (RWSEM_WAIT_TIMEOUT, ~4 ms) has or has not expired: a nondeterministic choice;
//  - no RT tasks, no signals (TASK_UNINTERRUPTIBLE only), no lockdep beyond the ghost owner record.
#pragma once
#include "model/mutants.hpp"
#include "model/rwsem.hpp"

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
  bool handoff_set = false;       // under wait_lock: plain, see wait_list
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
  rl::mutex wait_lock;  // raw_spinlock_t: a blocking Relacy mutex, so waiting is not a livelock
  // wait_list and each waiter's handoff_set are only touched under wait_lock, which the kernel
  // asserts with lockdep_assert_held(&sem->wait_lock); the model checks that on a ghost owner and
  // keeps them plain, since instrumenting them multiplied the interleavings without new races to find.
  rwsem_wait_list wait_list_;
  int ghost_wait_lock_owner = -1;
  // The waiter lives on the sleeping task's stack; the model keeps one slot per task so that a
  // stale pointer in the list reads stale data rather than crashing the checker.
  rwsem_waiter waiter_slot[RWSEM_MODEL_MAX_TASKS];
  int ghost_handoff_requester = -1;  // the waiter RWSEM_FLAG_HANDOFF was last set for (checker bookkeeping)

  explicit rwsem_count_model(const char* n) : rw_semaphore(n) {
    count.store(0, rl::memory_order_relaxed);  // RWSEM_UNLOCKED_VALUE
    trace_name(&count, "count of %s", n);
    trace_name(relacy_impl_address(&wait_lock), "wait_lock of %s", n);
    for (int i = 0; i < RWSEM_MODEL_MAX_TASKS; i++) trace_name(&waiter_slot[i].task, "waiter.task of task %d", i);
  }
  const char* model_kind() const override { return "faithful rw_semaphore (kernel/locking/rwsem.c)"; }

 protected:
  // __down_read (kernel/locking/rwsem.c)
  void __down_read() override {
    long c;
    if (!rwsem_read_trylock(&c)) rwsem_down_read_slowpath(c);
  }

  // __down_read_trylock (kernel/locking/rwsem.c)
  bool __down_read_trylock() override {
    long tmp = count.load(rl::memory_order_relaxed);
    while (!(tmp & RWSEM_READ_FAILED_MASK)) {
      if (count.compare_exchange_strong(tmp, tmp + RWSEM_READER_BIAS, rl::memory_order_acquire,
                                        rl::memory_order_relaxed)) {
        rwsem_acquire_read();
        return true;
      }
    }
    return false;
  }

  // __up_read (kernel/locking/rwsem.c)
  void __up_read() override {
    long tmp = count.fetch_add(-RWSEM_READER_BIAS, rl::memory_order_release) - RWSEM_READER_BIAS;
    rwsem_release_read();
    if ((tmp & (RWSEM_LOCK_MASK | RWSEM_FLAG_WAITERS)) == RWSEM_FLAG_WAITERS && !mutant(Mutant::up_read_no_wake))
      rwsem_wake();
  }

  // __down_write via rwsem_write_trylock (kernel/locking/rwsem.c)
  void __down_write() override {
    long tmp = 0;
    if (count.compare_exchange_strong(tmp, RWSEM_WRITER_LOCKED, rl::memory_order_acquire))
      rwsem_acquire_write();
    else
      rwsem_down_write_slowpath();
  }

  // __up_write (kernel/locking/rwsem.c)
  void __up_write() override {
    long tmp = mutant(Mutant::up_write_relaxed)
                   ? count.fetch_add(-RWSEM_WRITER_LOCKED, rl::memory_order_relaxed)
                   : count.fetch_add(-RWSEM_WRITER_LOCKED, rl::memory_order_release);
    rwsem_release_write();
    if (tmp & RWSEM_FLAG_WAITERS) rwsem_wake();
  }

 private:
  rwsem_waiter* my_waiter() { return &waiter_slot[rl::thread_index()]; }
  // raw_spin_lock_irq / raw_spin_unlock_irq on sem->wait_lock, with the ghost owner lockdep checks.
  void raw_spin_lock_irq() {
    wait_lock.lock($);
    ghost_wait_lock_owner = rl::thread_index();
  }
  void raw_spin_unlock_irq() {
    ghost_wait_lock_owner = -1;
    wait_lock.unlock($);
  }
  rwsem_wait_list& wait_list() {
    VM_CHECK(ghost_wait_lock_owner == (int)rl::thread_index(), "lock not held",
             "wait_list of %s touched without its wait_lock", name);
    return wait_list_;
  }
  rwsem_wait_list list() { return wait_list(); }
  bool list_empty() { return list().n == 0; }
  rwsem_waiter* rwsem_first_waiter() { return list().w[0]; }

  // time_after(jiffies, waiter->timeout): whether RWSEM_WAIT_TIMEOUT has passed is a nondeterministic choice.
  static bool rwsem_wait_timed_out() { return rl::rand(2) == 1; }

  // DESIGN invariant 7: a lock taken while RWSEM_FLAG_HANDOFF is set goes to the task that set it.
  void check_handoff(long observed, const char* path) {
    VM_CHECK(!(observed & RWSEM_FLAG_HANDOFF) || ghost_handoff_requester == (int)rl::thread_index(), "handoff",
             "thread %d took %s by %s while RWSEM_FLAG_HANDOFF hands it to thread %d", (int)rl::thread_index(),
             name, path, ghost_handoff_requester);
  }

  // rwsem_read_trylock (kernel/locking/rwsem.c)
  bool rwsem_read_trylock(long* cntp) {
    *cntp = count.fetch_add(RWSEM_READER_BIAS, rl::memory_order_acquire) + RWSEM_READER_BIAS;
    long failed = RWSEM_READ_FAILED_MASK;
    if (mutant(Mutant::read_fastpath_ignores_writer)) failed &= ~RWSEM_WRITER_MASK;
    if (!(*cntp & failed)) {
      check_handoff(*cntp, "the read fast path");
      rwsem_acquire_read();
      return true;
    }
    return false;
  }

  // rwsem_add_waiter (kernel/locking/rwsem.c): the caller sets RWSEM_FLAG_WAITERS.
  void rwsem_add_waiter(rwsem_waiter* waiter) {
    rwsem_wait_list& l = wait_list();
    l.w[l.n++] = waiter;
  }

  // rwsem_del_waiter (kernel/locking/rwsem.c)
  bool rwsem_del_waiter(rwsem_waiter* waiter) {
    rwsem_wait_list& l = wait_list();
    l.del(waiter);
    if (l.n != 0) return true;
    count.fetch_and(~(RWSEM_FLAG_HANDOFF | RWSEM_FLAG_WAITERS), rl::memory_order_relaxed);
    return false;
  }

  // rwsem_mark_wake (kernel/locking/rwsem.c): wake the writer at the head, or the queued readers.
  void rwsem_mark_wake(rwsem_wake_type wake_type, wake_q_head* wake_q) {
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
          waiter->handoff_set = true;
        }
        count.fetch_add(-adjustment, rl::memory_order_relaxed);
        return;
      }
    }
    // Move up to MAX_READERS_WAKEUP readers (skipping writers) from the queue to wlist.
    rwsem_wait_list& l = wait_list();
    rwsem_wait_list wlist;
    for (int i = 0; i < l.n && woken < MAX_READERS_WAKEUP; i++) {
      if (l.w[i]->type == RWSEM_WAITING_FOR_WRITE) continue;
      woken++;
      wlist.w[wlist.n++] = l.w[i];
    }
    for (int i = 0; i < wlist.n; i++) l.del(wlist.w[i]);

    adjustment = woken * RWSEM_READER_BIAS - adjustment;
    oldcount = count.load(rl::memory_order_relaxed);
    if (l.n == 0) {
      adjustment -= RWSEM_FLAG_WAITERS;
      if (oldcount & RWSEM_FLAG_HANDOFF) adjustment -= RWSEM_FLAG_HANDOFF;
    } else if (woken) {
      if (oldcount & RWSEM_FLAG_HANDOFF) adjustment -= RWSEM_FLAG_HANDOFF;
    }
    if (adjustment) count.fetch_add(adjustment, rl::memory_order_relaxed);

    // 2nd pass: grant each reader by clearing waiter->task with a store-release.
    for (int i = 0; i < wlist.n; i++) {
      task_struct* tsk = wlist.w[i]->task.load(rl::memory_order_relaxed);
      if (mutant(Mutant::mark_wake_relaxed_grant))
        wlist.w[i]->task.store(nullptr, rl::memory_order_relaxed);
      else
        wlist.w[i]->task.store(nullptr, rl::memory_order_release);
      wake_q_add(wake_q, tsk);
    }
  }

  int waiter_owner(const rwsem_waiter* w) const { return (int)(w - waiter_slot); }

  // rwsem_cond_wake_waiter (kernel/locking/rwsem.c)
  void rwsem_cond_wake_waiter(long c, wake_q_head* wake_q) {
    if (c & RWSEM_WRITER_MASK) return;
    rwsem_mark_wake((c & RWSEM_READER_MASK) ? RWSEM_WAKE_READERS : RWSEM_WAKE_ANY, wake_q);
  }

  // rwsem_down_read_slowpath (kernel/locking/rwsem.c)
  void rwsem_down_read_slowpath(long c) {
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
        if (rcnt == 1 && (c & RWSEM_FLAG_WAITERS)) {
          raw_spin_lock_irq();
          if (!list_empty()) rwsem_mark_wake(RWSEM_WAKE_READ_OWNED, &wake_q);
          raw_spin_unlock_irq();
          wake_up_q(&wake_q);
        }
        return;
      }
    }
    rwsem_waiter* waiter = my_waiter();
    waiter->task.store(current_task(), rl::memory_order_relaxed);
    waiter->type = RWSEM_WAITING_FOR_READ;
    waiter->handoff_set = false;

    raw_spin_lock_irq();
    if (list_empty()) {
      // Queue empty and no writer: the bias already in the count is the lock.
      if (!(count.load(rl::memory_order_relaxed) & RWSEM_WRITER_MASK)) {
        rl::atomic_thread_fence(rl::memory_order_acquire);  // smp_acquire__after_ctrl_dep
        rwsem_acquire_read();
        raw_spin_unlock_irq();
        return;
      }
      adjustment += RWSEM_FLAG_WAITERS;
    }
    rwsem_add_waiter(waiter);
    c = count.fetch_add(adjustment, rl::memory_order_seq_cst) + adjustment;  // atomic_long_add_return
    rwsem_cond_wake_waiter(c, &wake_q);
    raw_spin_unlock_irq();
    if (!wake_q_empty(&wake_q)) wake_up_q(&wake_q);

    set_current_state_uninterruptible();
    for (;;) {  // wait to be given the lock
      if (!waiter->task.load(rl::memory_order_acquire)) {  // pairs with rwsem_mark_wake's release
        rwsem_acquire_read();
        break;
      }
      schedule();
    }
  }

  // rwsem_try_write_lock (kernel/locking/rwsem.c): called with wait_lock held.
  bool rwsem_try_write_lock(rwsem_waiter* waiter) {
    rwsem_waiter* first = rwsem_first_waiter();
    long c = count.load(rl::memory_order_relaxed), nw;
    do {
      bool has_handoff = c & RWSEM_FLAG_HANDOFF;
      if (has_handoff && first->handoff_set && waiter != first) return false;
      nw = c;
      if (c & RWSEM_LOCK_MASK) {
        if (has_handoff || !rwsem_wait_timed_out()) return false;  // only a waiter that timed out sets handoff
        nw |= RWSEM_FLAG_HANDOFF;
      } else {
        nw |= RWSEM_WRITER_LOCKED;
        nw &= ~RWSEM_FLAG_HANDOFF;
        if (list().n == 1 || mutant(Mutant::try_write_lock_clears_waiters)) nw &= ~RWSEM_FLAG_WAITERS;
      }
    } while (!count.compare_exchange_strong(c, nw, rl::memory_order_acquire));

    if (nw & RWSEM_FLAG_HANDOFF) {
      first->handoff_set = true;
      ghost_handoff_requester = waiter_owner(first);  // the lock is handed to the first waiter
      return false;
    }
    check_handoff(c, "rwsem_try_write_lock");
    rwsem_acquire_write();
    wait_list().del(waiter);  // list_del: the flags were updated by the cmpxchg above
    return true;
  }

  // rwsem_try_write_lock_unqueued (kernel/locking/rwsem.c): an optimistic spinner's lock steal.
  bool rwsem_try_write_lock_unqueued() {
    long c = count.load(rl::memory_order_relaxed);
    while (!(c & (RWSEM_LOCK_MASK | RWSEM_FLAG_HANDOFF))) {
      if (count.compare_exchange_strong(c, c | RWSEM_WRITER_LOCKED, rl::memory_order_acquire)) {
        check_handoff(c, "optimistic lock stealing");
        rwsem_acquire_write();
        return true;
      }
    }
    return false;
  }

  // rwsem_down_write_slowpath (kernel/locking/rwsem.c)
  void rwsem_down_write_slowpath() {
    // rwsem_can_spin_on_owner && rwsem_optimistic_spin: whether the owner is running on
    // another CPU is not modelled, so spinning happens or not nondeterministically.
    if (rl::rand(2) == 1 && rwsem_try_write_lock_unqueued()) return;
    wake_q_head wake_q;
    rwsem_waiter* waiter = my_waiter();
    waiter->task.store(current_task(), rl::memory_order_relaxed);
    waiter->type = RWSEM_WAITING_FOR_WRITE;
    waiter->handoff_set = false;

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

    set_current_state_uninterruptible();
    for (;;) {
      if (rwsem_try_write_lock(waiter)) break;
      raw_spin_unlock_irq();
      // No spinning on the owner after setting handoff: performance only.
      schedule();
      set_current_state_uninterruptible();
      raw_spin_lock_irq();
    }
    raw_spin_unlock_irq();
  }

  // rwsem_wake (kernel/locking/rwsem.c)
  void rwsem_wake() {
    wake_q_head wake_q;
    raw_spin_lock_irq();
    if (!list_empty()) rwsem_mark_wake(RWSEM_WAKE_ANY, &wake_q);
    raw_spin_unlock_irq();
    wake_up_q(&wake_q);
  }
};
