// The kernel's own rw_semaphore (kernel/locking/rwsem.c taken from a tree by `vmaverify kernel`,
// model/kshim/rwsem.h), standing in for the hand model (model/rwsem_count.hpp) in the rwsem
// scenarios. The checker's kernel translation unit provides the operations; while
// g_kernel_rwsem is set, each faithful rw_semaphore built in an iteration runs them on a kernel
// struct rw_semaphore of its own, whose count and wait_lock are the hand model's objects (so
// that the scenarios' own checks, which read sem.count, read the kernel code's count).
// Free of Relacy's headers (the command line includes it): count and wait_lock are passed as
// void * (an rl::atomic<long> and an rl::mutex).
#pragma once

struct kernel_rwsem_ops {
  // Build the kernel semaphore in storage (at most KERNEL_RWSEM_STORAGE bytes); destroy it.
  void (*init)(void* storage, void* count, void* wait_lock, const char* name);
  void (*destroy)(void* storage);
  // __down_read, __down_read_trylock, __up_read, __down_write, __down_write_trylock, __up_write.
  void (*down_read)(void* storage);
  int (*down_read_trylock)(void* storage);
  void (*up_read)(void* storage);
  void (*down_write)(void* storage);
  int (*down_write_trylock)(void* storage);
  void (*up_write)(void* storage);
  // __down_read_killable, __down_write_killable: 0, or -EINTR when a fatal signal ended the wait;
  // null when the tree has neither (kernel_extract.py takes them only when both are there).
  int (*down_read_killable)(void* storage);
  int (*down_write_killable)(void* storage);
};
constexpr unsigned KERNEL_RWSEM_STORAGE = 512;

// linked: the binary holds the tree's rwsem.c (set by its registrar); active: the one in use
// (vmaverify kernel sets it for the rwsem scenarios), else null.
extern const kernel_rwsem_ops* g_kernel_rwsem_linked;
extern const kernel_rwsem_ops* g_kernel_rwsem;
extern const char* g_kernel_rwsem_source_file;  // the tree's file it came from: "kernel/locking/rwsem.c"
