#include "model/userfaultfd.hpp"
#include "model/call_chain.hpp"

#include <cerrno>
#include "model/lockdep.hpp"

void anon_vma_prepare(vm_area_struct* vma) {
  KERNEL_FRAME();
  // __anon_vma_prepare under spin_lock(&mm->page_table_lock): vma->anon_vma set unless it is
  // already, the recheck and the store in one step, so only lockdep sees the lock.
  lockdep_acquire("page_table_lock", false);
  vma->anon_vma_live->exchange(true, rl::memory_order_relaxed);
  lockdep_release("page_table_lock");
}

int mfill_atomic_copy(vm_area_struct* vma, unsigned long addr) {
  KERNEL_FRAME();
  LOG_TASK("userfaultfd (UFFDIO_COPY)");
  const char* who = "UFFDIO_COPY (mfill_atomic)";
  mm_pgtables* pt = vma_pgtables(vma);
  // The destination is a private mapping (!VM_SHARED): its new page is anonymous, under the
  // VMA's anon_vma.
  anon_vma_prepare(vma);
  // mm_alloc_pmd: the PUD and PMD tables exist in the worlds this runs in; slot() says so if not.
  table_page* pmd_table = pt->slot(PMD_TABLE, addr);
  descend_to(pt, addr, PMD_TABLE, who, vma->id);
  table_page* pte_slot = pt->slot(PTE_TABLE, addr);
  int pmdval = pte_slot->state.load(rl::memory_order_acquire);  // pmdp_get_lockless
  check_deref(pt, pmd_table, who, vma->id);
  if (pmdval != PT_PRESENT) pt_populate_new(pte_slot, pmdval);  // __pte_alloc
  if (pte_slot->state.load(rl::memory_order_acquire) != PT_PRESENT) return -EEXIST;  // none again: be strict
  // mfill_atomic_pte_copy, mfill_atomic_install_pte
  table_page* pte_table = pte_offset_map_lock(pt, pmd_table, addr, who, vma->id);
  if (!pte_table) return -EAGAIN;
  pte_table->ptes.load(rl::memory_order_relaxed);  // pte_none_mostly(ptep_get(dst_pte))
  int ret = pt_pte_at(pte_table, addr) ? -EEXIST : 0;
  if (ret == 0) {
    pte_table->ptes.store(1, rl::memory_order_relaxed);  // set_pte_at
    pt_set_pte(pte_table, vma_page(vma, addr, page_kind::anon));
    check_deref(pt, pte_table, who, vma->id);
  }
  pte_unmap_unlock(pte_table);  // out_unlock
  return ret;
}
