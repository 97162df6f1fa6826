// The rw_semaphore API (include/linux/rwsem.h, kernel/locking/rwsem.c), two implementations:
//  - rwsem_count_model (rwsem_count.hpp): the kernel's count word, wait list and handoff, faithfully;
//  - rwsem_abstract (rwsem_abstract.hpp): one atomic step to acquire, one to release, so that the
//    teardown scenarios stay small. The faithful one is verified on its own scenarios.
#pragma once
#include "model/check.hpp"
#include "model/call_chain.hpp"
#include "model/kernel_rwsem.hpp"
#include "model/lockdep.hpp"
#include "model/sched.hpp"

struct rw_semaphore {
  const char* name;  // for messages and traces, e.g. "i_mmap_rwsem of A"

  explicit rw_semaphore(const char* n) : name(n) {}
  virtual ~rw_semaphore() {
    if (kernel_) kernel_->destroy(kernel_storage_);
  }

  // down_read / up_read / down_write / up_write (kernel/locking/rwsem.c). The lockdep annotation
  // is modelled as the ghost owner record below, which the implementations update right at
  // their acquiring or releasing atomic step: no scheduling point lies between the two, so the
  // ghost record never disagrees with the count in any interleaving.
  // With the kernel's own rwsem.c attached (model/kernel_rwsem.hpp), its functions run instead;
  // the ghost record is then updated when they return and before the release is called (the
  // critical section is what lies between), since the tree's code has no hook at its atomic step.
  // lockdep's lock order (model/lockdep.hpp) is recorded before a blocking acquisition and
  // after a successful trylock, and dropped at the release, as rwsem.c's rwsem_acquire and
  // rwsem_release annotations do.
  void down_read() {
    KERNEL_FRAME();
    lockdep_acquire(name, false);
    if (!kernel_) return __down_read();
    kernel_->down_read(kernel_storage_);
    rwsem_acquire_read();
  }
  bool down_read_trylock() {
    KERNEL_FRAME();
    bool got = kernel_ ? kernel_->down_read_trylock(kernel_storage_) : __down_read_trylock();
    if (!got) return false;
    if (kernel_) rwsem_acquire_read();
    lockdep_acquire(name, true);
    return true;
  }
  void up_read() {
    KERNEL_FRAME();
    lockdep_release(name);
    if (!kernel_) return __up_read();
    rwsem_release_read();
    kernel_->up_read(kernel_storage_);
  }
  void down_write() {
    KERNEL_FRAME();
    lockdep_acquire(name, false);
    if (!kernel_) return __down_write();
    kernel_->down_write(kernel_storage_);
    rwsem_acquire_write();
  }
  bool down_write_trylock() {
    KERNEL_FRAME();
    bool got = kernel_ ? kernel_->down_write_trylock(kernel_storage_) : __down_write_trylock();
    if (!got) return false;
    if (kernel_) rwsem_acquire_write();
    lockdep_acquire(name, true);
    return true;
  }
  void up_write() {
    KERNEL_FRAME();
    lockdep_release(name);
    if (!kernel_) return __up_write();
    rwsem_release_write();
    kernel_->up_write(kernel_storage_);
  }

  // down_read_killable / down_write_killable: 0 with the lock, or -EINTR without it when a fatal
  // signal ended the wait (model/sched.hpp: signal_pending_killable).
  int down_read_killable() {
    KERNEL_FRAME();
    return down_killable(&rw_semaphore::__down_read_killable, kernel_ ? kernel_->down_read_killable : nullptr,
                         "__down_read_killable", &rw_semaphore::rwsem_acquire_read);
  }
  int down_write_killable() {
    KERNEL_FRAME();
    return down_killable(&rw_semaphore::__down_write_killable, kernel_ ? kernel_->down_write_killable : nullptr,
                         "__down_write_killable", &rw_semaphore::rwsem_acquire_write);
  }

  // lockdep_assert_held_write / lockdep_assert_held_read, on the ghost record.
  bool held_write_by_current() const { return ghost_writer == (int)rl::thread_index(); }
  bool held_read_by_current() const { return ghost_readers_mask & (1u << rl::thread_index()); }

  // Which implementation this is, for scenario descriptions.
  virtual const char* model_kind() const = 0;

 protected:
  virtual void __down_read() = 0;
  virtual bool __down_read_trylock() = 0;
  virtual void __up_read() = 0;
  virtual void __down_write() = 0;
  virtual bool __down_write_trylock() = 0;
  virtual void __up_write() = 0;
  // Both killable waits: the model's (a member), or the tree's (kernel_fn, null if the tree's
  // rwsem.c lacks it), then the ghost record (acquired) when the tree's code took the lock.
  int down_killable(int (rw_semaphore::*model)(), int (*kernel_fn)(void*), const char* kernel_name,
                    void (rw_semaphore::*acquired)()) {
    lockdep_acquire(name, false);
    int ret = 0;
    if (!kernel_) {
      ret = (this->*model)();
    } else {
      VM_CHECK(kernel_fn, "unmodelled", "the tree's rwsem.c has no %s", kernel_name);
      ret = kernel_fn(kernel_storage_);
      if (ret == 0) (this->*acquired)();
    }
    if (ret != 0) lockdep_release(name);
    return ret;
  }

  // The abstract semaphore has no wait queue to leave: its killable waits are never interrupted.
  virtual int __down_read_killable() {
    __down_read();
    return 0;
  }
  virtual int __down_write_killable() {
    __down_write();
    return 0;
  }

  // Called by an implementation whose count and wait_lock the kernel's rwsem.c may take over
  // (the faithful one), at the end of its constructor: attaches it when g_kernel_rwsem is set.
  void attach_kernel_rwsem(rl::atomic<long>* count, rl::mutex* wait_lock) {
    if (!g_kernel_rwsem) return;
    kernel_ = g_kernel_rwsem;
    kernel_->init(kernel_storage_, count, wait_lock, name);
  }

  // Called by the implementations right after their releasing atomic step.
  void rwsem_release_read() { ghost_readers_mask &= ~(1u << rl::thread_index()); }
  void rwsem_release_write() { ghost_writer = -1; }

  // Called by the implementations right after their acquiring atomic step.
  // DESIGN invariant 7: never a writer together with another writer or a reader.
  void rwsem_acquire_read() {
    VM_CHECK(ghost_writer < 0, "mutual exclusion", "thread %d got %s for read while thread %d holds it for write",
             (int)rl::thread_index(), name, ghost_writer);
    ghost_readers_mask |= 1u << rl::thread_index();
  }
  void rwsem_acquire_write() {
    VM_CHECK(ghost_writer < 0 && ghost_readers_mask == 0, "mutual exclusion",
             "thread %d got %s for write while it is held (writer %d, readers mask %#x)",
             (int)rl::thread_index(), name, ghost_writer, ghost_readers_mask);
    ghost_writer = rl::thread_index();
  }

 private:
  const kernel_rwsem_ops* kernel_ = nullptr;
  alignas(16) unsigned char kernel_storage_[KERNEL_RWSEM_STORAGE];

  // Ghost lock ownership (plain C++: bookkeeping of the checker, not kernel state).
  int ghost_writer = -1;
  unsigned ghost_readers_mask = 0;
};
