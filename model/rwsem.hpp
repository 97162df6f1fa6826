// The rw_semaphore API (include/linux/rwsem.h, kernel/locking/rwsem.c), two implementations:
//  - rwsem_count_model (rwsem_count.hpp): the kernel's count word, wait list and handoff, faithfully;
//  - rwsem_abstract (rwsem_abstract.hpp): one atomic step to acquire, one to release, so that the
//    teardown scenarios stay small. The faithful one is verified on its own scenarios.
#pragma once
#include "model/check.hpp"
#include "model/sched.hpp"

struct rw_semaphore {
  const char* name;  // for messages and traces, e.g. "i_mmap_rwsem of A"

  explicit rw_semaphore(const char* n) : name(n) {}
  virtual ~rw_semaphore() = default;

  // down_read / up_read / down_write / up_write (kernel/locking/rwsem.c). The lockdep annotation
  // is modelled as the ghost owner record below, which the implementations update right at
  // their acquiring or releasing atomic step: no scheduling point lies between the two, so the
  // ghost record never disagrees with the count in any interleaving.
  void down_read() { __down_read(); }
  bool down_read_trylock() { return __down_read_trylock(); }
  void up_read() { __up_read(); }
  void down_write() { __down_write(); }
  bool down_write_trylock() { return __down_write_trylock(); }
  void up_write() { __up_write(); }

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
  // Ghost lock ownership (plain C++: bookkeeping of the checker, not kernel state).
  int ghost_writer = -1;
  unsigned ghost_readers_mask = 0;
};
