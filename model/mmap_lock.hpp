// mm->mmap_lock (include/linux/mmap_lock.h) for the scenarios where a page fault races with
// munmap: read, write, and the downgrade of write to read that munmap does before it frees the
// page tables (vms_complete_munmap_vmas), one step each way like the abstract rw_semaphore;
// and the per-VMA locks (include/linux/mm.h, CONFIG_PER_VMA_LOCK, on for x86-64 SMP) a fault
// takes instead when it can (lock_vma_under_rcu).
//
// Relacy's reader/writer lock has no downgrade, so a writer also holds a gate that every
// locker passes first: the downgrade turns the exclusive hold into a shared one while still
// holding the gate, then opens it, so no writer can come in between, as in downgrade_write.
// Both record their order with lockdep (model/lockdep.hpp): mmap_lock, and vm_lock (the
// fault's trylock adds no order, vma_start_write's down_write does).
// Not modelled: the semaphore's queue and its fairness (rwsem.c, verified on its own), the
// killable variants' signals.
#pragma once
#include "model/rl_env.hpp"

struct mmap_lock_rw_tag;
struct mmap_lock_gate_tag;

struct mmap_lock_t {
  rl::generic_mutex<mmap_lock_rw_tag> rw;
  rl::generic_mutex<mmap_lock_gate_tag> gate;
  int ghost_writer = -1;  // the task holding it for write, for the checks
  // mm->mm_lock_seq: a VMA whose vm_lock_seq equals it is write-locked; mmap_write_unlock and
  // mmap_write_downgrade end every VMA's write lock at once by advancing it (vma_end_write_all).
  rl::atomic<int> mm_lock_seq;

  explicit mmap_lock_t(const char* owner);
  ~mmap_lock_t();
};

struct vma_lock_tag;

// vma->vm_lock and vma->vm_lock_seq, and vma->detached.
struct vma_lock_t {
  rl::generic_mutex<vma_lock_tag> lock;  // faults read-trylock it; vma_start_write write-locks it
  rl::atomic<int> vm_lock_seq;
  rl::atomic<bool> detached;

  explicit vma_lock_t(const char* vma_name);
  ~vma_lock_t();
};

// vma_start_write: under mmap_lock for write, wait for the VMA's readers (faults) to leave and
// mark the VMA write-locked until the mmap_lock is released or downgraded.
void vma_start_write_locked(mmap_lock_t* mm_lock, vma_lock_t* l);
// vma_start_read: a fault's try; false if the VMA is write-locked or its lock is contended.
bool vma_start_read(mmap_lock_t* mm_lock, vma_lock_t* l);
void vma_end_read(vma_lock_t* l);
// vma_mark_detached(vma, true): the VMA left the tree (vms_gather_munmap_vmas).
void vma_mark_detached(vma_lock_t* l);

void mmap_read_lock(mmap_lock_t* l);
void mmap_read_unlock(mmap_lock_t* l);
void mmap_write_lock(mmap_lock_t* l);
void mmap_write_unlock(mmap_lock_t* l);
void mmap_write_downgrade(mmap_lock_t* l);
// mm->mm_lock_seq as its writer reads it; the caller must hold the lock for write (checked).
int mm_lock_seq_of_writer(mmap_lock_t* l);
