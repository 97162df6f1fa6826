// An abstract rw_semaphore for the teardown scenarios: the API of include/linux/rwsem.h with
// one atomic step to acquire and one to release, blocking in Relacy's own reader/writer lock.
// Why: the count-word protocol is verified on its own scenarios (rwsem_*); here it would only
// multiply the interleavings of the code under test. The rwsem_agrees scenario runs a small
// teardown on the faithful model to check that the two agree.
#pragma once
#include "model/rwsem.hpp"
#include "model/call_chain.hpp"

struct rwsem_abstract_tag;

struct rwsem_abstract final : rw_semaphore {
  rl::generic_mutex<rwsem_abstract_tag> lock;

  explicit rwsem_abstract(const char* n) : rw_semaphore(n) {
    lock.init(true, false, false, false, RL_INFO);
    announce_sync_primitive(&lock);
    trace_name(relacy_impl_address(&lock), "%s", n);
  }
  ~rwsem_abstract() override { lock.deinit(RL_INFO); }
  const char* model_kind() const override { return "abstract rw_semaphore (one step each way)"; }

 protected:
  void __down_read() override {
    KERNEL_FRAME();
    announce_blocking_lock();
    lock.lock_shared(RL_INFO);
    rwsem_acquire_read();
  }
  bool __down_read_trylock() override {
    KERNEL_FRAME();
    if (!lock.try_lock_shared(RL_INFO)) return false;
    rwsem_acquire_read();
    return true;
  }
  void __up_read() override {
    KERNEL_FRAME();
    lock.unlock_shared(RL_INFO);
    rwsem_release_read();
  }
  void __down_write() override {
    KERNEL_FRAME();
    announce_blocking_lock();
    lock.lock_exclusive(RL_INFO);
    rwsem_acquire_write();
  }
  bool __down_write_trylock() override {
    KERNEL_FRAME();
    if (!lock.try_lock_exclusive(RL_INFO)) return false;
    rwsem_acquire_write();
    return true;
  }
  void __up_write() override {
    KERNEL_FRAME();
    lock.unlock_exclusive(RL_INFO);
    rwsem_release_write();
  }
};
