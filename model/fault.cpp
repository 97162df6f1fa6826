#include "model/fault.hpp"
#include "model/call_chain.hpp"

#include "model/mmap_lock.hpp"
#include "model/mutants.hpp"

// find_vma (mm/mmap.c): the first VMA of the tree that ends above addr, or null. Under
// mmap_lock, or under RCU (mas_walk): the read of the tree is instrumented either way, so that
// a change made without the lock the reader relies on is a race the reduced search sees.
static vm_area_struct* find_vma(mm_struct* mm, unsigned long addr) {
  KERNEL_FRAME();
  mm->mt_seq.load(rl::memory_order_acquire);  // the tree's nodes, published with rcu_assign_pointer
  for (int i = 0; i < mm->nr; i++)
    if (mm->vmas[i]->vm_end > addr) return mm->vmas[i];
  return nullptr;
}

// vma_prev (include/linux/mm.h) of a VMA of the tree.
static vm_area_struct* vma_prev(mm_struct* mm, vm_area_struct* vma) {
  KERNEL_FRAME();
  for (int i = 1; i < mm->nr; i++)
    if (mm->vmas[i] == vma) return mm->vmas[i - 1];
  return nullptr;
}

// The stack guard gap (mm/mmap.c, stack_guard_gap): when a stack grows down to addr, no VMA
// below it that is not a stack itself ends less than STACK_GUARD_GAP below addr. A ghost scan
// of the whole tree, independent of the prev that expand_downwards tests: a growth decided on a
// stale view of the tree (another task mapped into the gap meanwhile) fails it.
static void check_stack_guard_gap(mm_struct* mm, vm_area_struct* stack, unsigned long addr) {
  for (int i = 0; i < mm->nr; i++) {
    const vm_area_struct* v = mm->vmas[i];
    if (v == stack || v->growsdown || v->vm_start >= addr) continue;
    VM_CHECK(addr - v->vm_end >= STACK_GUARD_GAP, "guard gap",
             "the stack of %s grew down to %#lx, %#lx above the end of vma %d (the guard gap is %#lx)",
             mm->name, addr, addr - v->vm_end, v->id, STACK_GUARD_GAP);
  }
}

// expand_downwards (mm/mmap.c): grow a VM_GROWSDOWN VMA down to addr, keeping the stack guard
// gap above the VMA below it. Its caller holds mmap_lock for write (v6.5 on). The VMA below is
// looked up now, as the kernel does, unless the caller passes the one it saw earlier (*seen:
// only the stack_guard_gap_checked_before_upgrade mutant does).
static bool expand_downwards(mm_struct* mm, vm_area_struct* vma, unsigned long addr,
                             vm_area_struct* const* seen = nullptr) {
  KERNEL_FRAME();
  if (!vma->growsdown) return false;
  addr &= ~(PAGE_SIZE - 1);
  vm_area_struct* prev = seen ? *seen : vma_prev(mm, vma);
  if (prev && !prev->growsdown && addr - prev->vm_end < STACK_GUARD_GAP) return false;  // -ENOMEM
  vma_start_write(vma);  // keeps faults under the VMA's own lock out while it changes
  check_stack_guard_gap(mm, vma, addr);
  vma->vm_start = addr;  // vma_iter_store
  return true;
}

// A fault reads an entry inside `table` and then, maybe, writes inside it (populates the entry,
// or sets the PTE): a table that free_pgd_range cleared in between is one the fault writes into
// after it was unhooked, so what it maps is lost when the gather frees the page.
static void check_fault_deref(mm_pgtables* pt, table_page* table, vm_area_struct* vma, const char* who) {
  VM_CHECK(table->ghost_state != PT_FREED, "use-after-free",
           "%s in vma %d wrote inside %s table %#lx of %s after free_pgd_range freed it", who, vma->id,
           pt_level_name(table->level), table->base, pt->owner);
}

void install_pte(vm_area_struct* vma, unsigned long addr, const char* who) {
  mm_pgtables* pt = vma_pgtables(vma);
  table_page* above = nullptr;  // the table the next entry lives in (the pgd is never freed)
  for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE}) {
    table_page* p = pt->slot(l, addr);
    int entry = p->state.load(rl::memory_order_acquire);  // pXd_none(*pXd)
    if (above) check_fault_deref(pt, above, vma, who);
    if (entry != PT_PRESENT) {
      // __pXd_alloc: a new table page; under the page-table lock, if the entry is still none,
      // populate it (smp_wmb, then the store); else free the new page.
      pt_populate_new(p, entry);
      if (above) check_fault_deref(pt, above, vma, who);
    }
    above = p;
  }
  above->ptes.store(1, rl::memory_order_relaxed);  // set_pte_at
  pt_set_pte(above, vma_page(vma, addr, vma->vm_file ? page_kind::file : page_kind::anon));
  check_fault_deref(pt, above, vma, who);
}

// mas_walk (lib/maple_tree.c) under RCU: the VMA of the tree containing addr, or null.
static vm_area_struct* mas_walk(mm_struct* mm, unsigned long addr) {
  KERNEL_FRAME();
  vm_area_struct* vma = find_vma(mm, addr);
  return vma && vma->vm_start <= addr ? vma : nullptr;
}

// lock_vma_under_rcu (mm/memory.c): the VMA containing addr, read-locked, or null (then the
// fault takes the mmap_lock path). A VMA the scenario gives no per-VMA lock is not looked at
// here (its faults all take the mmap_lock path, which every failure here falls back to
// anyway). Simplified: a VMA found detached falls back too, where the kernel retries the walk
// (which finds it again until munmap clears the tree, or nothing).
static vm_area_struct* lock_vma_under_rcu(mm_struct* mm, unsigned long addr) {
  KERNEL_FRAME();
  vm_area_struct* vma = mas_walk(mm, addr);
  if (!vma || !vma->vm_lock) return nullptr;
  if (!vma_start_read(mm->mmap_lock, vma->vm_lock)) return nullptr;
  if (vma->vm_lock->detached.load(rl::memory_order_relaxed) || addr < vma->vm_start || addr >= vma->vm_end) {
    vma_end_read(vma->vm_lock);
    return nullptr;
  }
  return vma;
}

bool do_user_addr_fault(mm_struct* mm, unsigned long addr) {
  KERNEL_FRAME();
  LOG_TASK("page fault (do_user_addr_fault)");
  if (vm_area_struct* vma = lock_vma_under_rcu(mm, addr)) {
    install_pte(vma, addr, "the page fault under the VMA lock");  // handle_mm_fault
    vma_end_read(vma->vm_lock);
    return true;
  }
  // lock_mm_and_find_vma (mm/memory.c)
  mmap_read_lock(mm->mmap_lock);
  vm_area_struct* vma = find_vma(mm, addr);
  if (!vma || vma->vm_start > addr) {
    if (!vma || !vma->growsdown) {
      mmap_read_unlock(mm->mmap_lock);
      return false;
    }
    if (mutant(Mutant::stack_expanded_under_read_lock)) {
      // Before v6.5: the stack grew in place under the read lock.
      if (!expand_downwards(mm, vma, addr)) {
        mmap_read_unlock(mm->mmap_lock);  // the growth under the read lock refused
        return false;                     // (SIGSEGV)
      }
    } else {
      // mmap_upgrade_trylock does not exist yet: drop the read lock, take the write lock, look
      // the VMA up again (upgrade_mmap_lock_carefully).
      // The mutant decides on the guard gap with the VMA below as seen under the read lock.
      const bool stale = mutant(Mutant::stack_guard_gap_checked_before_upgrade);
      vm_area_struct* const prev_seen = stale ? vma_prev(mm, vma) : nullptr;
      mmap_read_unlock(mm->mmap_lock);
      mmap_write_lock(mm->mmap_lock);
      vma = find_vma(mm, addr);
      if (!vma || (vma->vm_start > addr && !expand_downwards(mm, vma, addr, stale ? &prev_seen : nullptr))) {
        mmap_write_unlock(mm->mmap_lock);
        return false;
      }
      mmap_write_downgrade(mm->mmap_lock);
    }
  }
  install_pte(vma, addr, "the page fault");  // handle_mm_fault
  mmap_read_unlock(mm->mmap_lock);
  return true;
}
