// The end of the checker's rwsem translation unit: the tree's __down_read ... __up_write behind
// the operations the faithful rw_semaphore hands over to (model/kernel_rwsem.hpp).
#pragma once

namespace krwsem {

static_assert(sizeof(rw_semaphore) <= KERNEL_RWSEM_STORAGE, "KERNEL_RWSEM_STORAGE is too small");

inline rw_semaphore* kshim_sem(void* storage) { return static_cast<rw_semaphore*>(storage); }

// The handoff check (the hand model's, model/rwsem_count.hpp check_handoff, on the tree's code):
// while RWSEM_FLAG_HANDOFF is set for a task that still waits in the queue, no other task takes
// the lock. Ghost, from the count word's changes (kshim_count_changed) and the wait list's ghost
// links. The task the bit is for is the first waiter when it is set (rwsem_try_write_lock sets
// it for `first`, rwsem_mark_wake for the first, reading, waiter). When that task leaves the
// queue without the lock (out_nolock) and others still wait, the bit stays and no one holds
// the hand-off any more: 6.12 lets any writer take the lock then, and so does the check.
// Per task: the count before its last own reader bias (a read acquisition by its own update).
inline long kshim_bias_old[KSHIM_MAX_GRANTED];
// A lock operation of the calling task begins: nothing granted, no bias of its own yet.
inline void kshim_lock_op_begins() {
  const int me = (int)rl::thread_index();
  if (me >= KSHIM_MAX_GRANTED) return;
  kshim_granted[me] = false;
  kshim_bias_old[me] = 0;
}
#if defined(RWSEM_FLAG_HANDOFF) && defined(RWSEM_WRITER_LOCKED) && defined(RWSEM_READER_BIAS)
inline int kshim_first_waiter_task(rw_semaphore* sem) {
  list_head* first = sem->wait_list.ghost_next;
  return first && first != &sem->wait_list ? first->task : -1;
}
inline bool kshim_still_queued(rw_semaphore* sem, int task) {
  int n = 0;
  for (list_head* p = sem->wait_list.ghost_next; p && p != &sem->wait_list && n < 64; p = p->ghost_next, n++)
    if (p->task == task) return true;
  return false;
}
inline void kshim_check_handoff(rw_semaphore* sem, long old, const char* how, rl::debug_info_param info) {
  const int me = (int)rl::thread_index();
  const int r = sem->ghost_handoff_for;
  if (!(old & RWSEM_FLAG_HANDOFF) || r < 0 || r == me || !kshim_still_queued(sem, r)) return;
  vm_fail("handoff", info, "task %d took %s %s while RWSEM_FLAG_HANDOFF hands it to task %d, still queued", me,
          sem->name, how, r);
}
inline void kshim_count_changed(atomic_long_t* v, long old, long nw, rl::debug_info_param info) {
  rw_semaphore* sem = kshim_sem_of(v);
  if (!sem) return;  // sem->owner, or a word of no semaphore
  const int me = (int)rl::thread_index();
  if (!(old & RWSEM_WRITER_LOCKED) && (nw & RWSEM_WRITER_LOCKED)) kshim_check_handoff(sem, old, "for write", info);
  if (nw - old == (long)RWSEM_READER_BIAS && me < KSHIM_MAX_GRANTED) kshim_bias_old[me] = old;
  if (!(old & RWSEM_FLAG_HANDOFF) && (nw & RWSEM_FLAG_HANDOFF)) sem->ghost_handoff_for = kshim_first_waiter_task(sem);
  if ((old & RWSEM_FLAG_HANDOFF) && !(nw & RWSEM_FLAG_HANDOFF)) sem->ghost_handoff_for = -1;
}
// The calling task took the lock for read: by a waker's grant, or by its own reader bias, which
// the hand-off must have allowed.
inline void kshim_read_acquired(rw_semaphore* sem) {
  const int me = (int)rl::thread_index();
  if (me >= KSHIM_MAX_GRANTED || kshim_granted[me]) return;
  kshim_check_handoff(sem, kshim_bias_old[me], "for read (by its own reader bias)", RL_INFO);
}
#else
// A tree whose rwsem.c has no hand-off bit (the extraction takes RWSEM_FLAG_HANDOFF and the bits
// beside it when the tree's functions use them): no hand-off to check.
inline void kshim_count_changed(atomic_long_t*, long, long, rl::debug_info_param) {}
inline void kshim_read_acquired(rw_semaphore*) {}
#endif

#pragma push_macro("new")
#undef new
inline void kshim_init(void* storage, void* count, void* wait_lock, const char* name) {
  ::new (storage) rw_semaphore(static_cast<atomic_long_t*>(count), static_cast<rl::mutex*>(wait_lock), name);
}
#pragma pop_macro("new")

const kernel_rwsem_ops kshim_ops = {
    &kshim_init,
    [](void* s) { kshim_sem(s)->~rw_semaphore(); },
    [](void* s) {
      kshim_lock_op_begins();
      __down_read(kshim_sem(s));
      kshim_read_acquired(kshim_sem(s));
    },
    [](void* s) {
      kshim_lock_op_begins();
      const int got = (int)__down_read_trylock(kshim_sem(s));
      if (got) kshim_read_acquired(kshim_sem(s));
      return got;
    },
    [](void* s) { __up_read(kshim_sem(s)); },
    [](void* s) { __down_write(kshim_sem(s)); },
    [](void* s) { return (int)__down_write_trylock(kshim_sem(s)); },
    [](void* s) { __up_write(kshim_sem(s)); },
#ifdef KSHIM_RWSEM_KILLABLE
    [](void* s) {
      kshim_lock_op_begins();
      const int ret = __down_read_killable(kshim_sem(s));
      if (ret == 0) kshim_read_acquired(kshim_sem(s));
      return ret;
    },
    [](void* s) { return __down_write_killable(kshim_sem(s)); },
#else
    nullptr,
    nullptr,
#endif
};

struct kshim_registrar {
  kshim_registrar() {
    g_kernel_rwsem_linked = &kshim_ops;
    g_kernel_rwsem_source_file = "kernel/locking/rwsem.c";
  }
} kshim_registered;

}  // namespace krwsem
