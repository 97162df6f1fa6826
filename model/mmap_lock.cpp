#include "model/mmap_lock.hpp"
#include "model/call_chain.hpp"

#include "model/check.hpp"
#include "model/lockdep.hpp"
#include "model/trace_names.hpp"

mmap_lock_t::mmap_lock_t(const char* owner) {
  rw.init(true, false, false, false, RL_INFO);
  gate.init(false, false, false, false, RL_INFO);
  announce_sync_primitive(&rw);
  announce_sync_primitive(&gate);
  trace_name(relacy_impl_address(&rw), "mmap_lock of %s", owner);
  trace_name(relacy_impl_address(&gate), "mmap_lock of %s (writer's hold)", owner);
  mm_lock_seq.store(0, rl::memory_order_relaxed);
  trace_name(&mm_lock_seq, "mm_lock_seq of %s", owner);
}

mmap_lock_t::~mmap_lock_t() {
  gate.deinit(RL_INFO);
  rw.deinit(RL_INFO);
}

void mmap_read_lock(mmap_lock_t* l) {
  KERNEL_FRAME();
  lockdep_acquire("mmap_lock", false);
  announce_blocking_lock();
  l->gate.lock_exclusive(RL_INFO);
  announce_blocking_lock();
  l->rw.lock_shared(RL_INFO);
  l->gate.unlock_exclusive(RL_INFO);
}

void mmap_read_unlock(mmap_lock_t* l) {
  KERNEL_FRAME();
  l->rw.unlock_shared(RL_INFO);
  lockdep_release("mmap_lock");
}

void mmap_write_lock(mmap_lock_t* l) {
  KERNEL_FRAME();
  lockdep_acquire("mmap_lock", false);
  announce_blocking_lock();
  l->gate.lock_exclusive(RL_INFO);
  announce_blocking_lock();
  l->rw.lock_exclusive(RL_INFO);
  l->ghost_writer = (int)rl::thread_index();
}

// vma_end_write_all (include/linux/mmap_lock.h): every VMA write lock ends.
static void vma_end_write_all(mmap_lock_t* l) {
  KERNEL_FRAME();
  l->mm_lock_seq.store(l->mm_lock_seq.load(rl::memory_order_relaxed) + 1, rl::memory_order_release);
}

void mmap_write_unlock(mmap_lock_t* l) {
  KERNEL_FRAME();
  vma_end_write_all(l);
  l->ghost_writer = -1;
  l->rw.unlock_exclusive(RL_INFO);
  l->gate.unlock_exclusive(RL_INFO);
  lockdep_release("mmap_lock");
}

void mmap_write_downgrade(mmap_lock_t* l) {
  KERNEL_FRAME();
  vma_end_write_all(l);
  l->ghost_writer = -1;
  l->rw.unlock_exclusive(RL_INFO);
  l->rw.lock_shared(RL_INFO);  // cannot block: the gate keeps every other locker out
  l->gate.unlock_exclusive(RL_INFO);
}

int mm_lock_seq_of_writer(mmap_lock_t* l) {
  VM_CHECK(l->ghost_writer == (int)rl::thread_index(), "lock not held", "vma_start_write without mmap_lock held for write");
  return l->mm_lock_seq.load(rl::memory_order_relaxed);
}


vma_lock_t::vma_lock_t(const char* vma_name) {
  lock.init(true, false, false, false, RL_INFO);
  announce_sync_primitive(&lock);
  trace_name(relacy_impl_address(&lock), "vm_lock of %s", vma_name);
  vm_lock_seq.store(-1, rl::memory_order_relaxed);
  detached.store(false, rl::memory_order_relaxed);
  trace_name(&vm_lock_seq, "vm_lock_seq of %s", vma_name);
  trace_name(&detached, "detached of %s", vma_name);
}

vma_lock_t::~vma_lock_t() { lock.deinit(RL_INFO); }

void vma_start_write_locked(mmap_lock_t* mm_lock, vma_lock_t* l) {
  // __is_vma_write_locked: the writer of mm_lock_seq is this task, so its own value is current.
  int seq = mm_lock_seq_of_writer(mm_lock);
  if (l->vm_lock_seq.load(rl::memory_order_relaxed) == seq) return;
  lockdep_acquire("vm_lock", false);
  announce_blocking_lock();
  l->lock.lock_exclusive(RL_INFO);  // down_write: waits for the faults holding it
  l->vm_lock_seq.store(seq, rl::memory_order_relaxed);
  l->lock.unlock_exclusive(RL_INFO);
  lockdep_release("vm_lock");
}

bool vma_start_read(mmap_lock_t* mm_lock, vma_lock_t* l) {
  KERNEL_FRAME();
  if (l->vm_lock_seq.load(rl::memory_order_relaxed) == mm_lock->mm_lock_seq.load(rl::memory_order_relaxed))
    return false;
  if (!l->lock.try_lock_shared(RL_INFO)) return false;  // down_read_trylock
  lockdep_acquire("vm_lock", true);
  // The recheck with acquire: a fault racing with vma_end_write_all reads the VMA only after it.
  if (l->vm_lock_seq.load(rl::memory_order_relaxed) == mm_lock->mm_lock_seq.load(rl::memory_order_acquire)) {
    vma_end_read(l);
    return false;
  }
  return true;
}

void vma_end_read(vma_lock_t* l) {
  KERNEL_FRAME();
  l->lock.unlock_shared(RL_INFO);
  lockdep_release("vm_lock");
}

void vma_mark_detached(vma_lock_t* l) { l->detached.store(true, rl::memory_order_relaxed); }
