// RCU as the page-table code relies on it (include/linux/rcupdate.h, kernel/rcu/tree.c): a
// lockless walker that runs inside a read-side critical section (rcu_read_lock, or, for
// GUP-fast, local_irq_save, which a grace period waits for too) may dereference a table page
// whose entry was cleared after it read it, because the page is freed only after a grace
// period: by tlb_finish_mmu's table batch (MMU_GATHER_RCU_TABLE_FREE, model/mmu_gather.hpp) and
// by khugepaged's pte_free_defer.
//
// Modelled as a reader/writer lock that readers hold for their critical sections and a grace
// period passes through as a writer (lock, unlock): it ends only after every section that had
// begun, and every section that begins after it sees what was stored before it (the lock's
// happens-before). Simplified: a reader that would start during the grace period waits for its
// end instead (it would see the cleared entries either way); call_rcu's callback runs at the end
// of the grace period, in the caller's step, not at some later time (a later free frees only
// a page no reader can still reach).
//
// A world declares its RCU readers (rcu_domain::readers). A grace period in a world with none
// is no scheduling point at all: nothing could observe it, and the teardown scenarios without
// a lockless walker keep their size.
#pragma once
#include "model/rl_env.hpp"

struct rcu_domain_tag;

struct rcu_domain {
  rl::generic_mutex<rcu_domain_tag> gp;
  int readers = 0;  // tasks of the world that enter read-side sections (set-up)

  rcu_domain();
  ~rcu_domain();
};

// The world's domain while a scenario runs (set by the world, null in worlds without one).
extern rcu_domain* g_rcu;

// rcu_read_lock / rcu_read_unlock, and local_irq_save / local_irq_restore as GUP-fast uses them
// (an interrupts-off section holds off the grace period: the TLB-flush IPI on native x86, RCU
// on paravirt kernels such as Debian's).
void rcu_read_lock();
void rcu_read_unlock();
// synchronize_rcu: returns once every read-side section that began before it has ended.
void synchronize_rcu();
