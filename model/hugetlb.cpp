#include "model/hugetlb.hpp"
#include "model/call_chain.hpp"

#include "model/mmu_gather.hpp"
#include "model/mutants.hpp"
#include "model/rcu.hpp"
#include "model/trace_names.hpp"

hugetlb_vma_lock::hugetlb_vma_lock(const char* name) : rw_sema(name) {
  attached($) = true;
  trace_name(&attached, "vm_private_data of the VMA of %s", name);
}

void hugetlb_reset_ghosts() {
  g_hugetlb_pmd_shared = g_hugetlb_unshared = g_hugetlb_share_refused = g_hugetlb_vma_lock_contended =
      g_hugetlb_share_lost_race = false;
}

// __vma_shareable_lock (include/linux/hugetlb.h): the VMA still has its vma_lock.
static hugetlb_vma_lock* vma_shareable_lock(vm_area_struct* vma) {
  hugetlb_vma_lock* l = vma->vm_private_data;
  return l && l->attached($) ? l : nullptr;
}

// hugetlb_vma_lock_read / hugetlb_vma_unlock_read / hugetlb_vma_lock_write /
// hugetlb_vma_unlock_write / hugetlb_vma_trylock_write (mm/hugetlb.c): no-ops on a VMA without
// a vma_lock (the private-mapping resv_map lock is not modelled).
static void hugetlb_vma_lock_read(vm_area_struct* vma) {
  KERNEL_FRAME();
  if (hugetlb_vma_lock* l = vma_shareable_lock(vma)) l->rw_sema.down_read();
}
static void hugetlb_vma_unlock_read(vm_area_struct* vma) {
  KERNEL_FRAME();
  if (hugetlb_vma_lock* l = vma_shareable_lock(vma)) l->rw_sema.up_read();
}
static void hugetlb_vma_lock_write(vm_area_struct* vma) {
  KERNEL_FRAME();
  if (hugetlb_vma_lock* l = vma_shareable_lock(vma)) l->rw_sema.down_write();
}
static void hugetlb_vma_unlock_write(vm_area_struct* vma) {
  KERNEL_FRAME();
  if (hugetlb_vma_lock* l = vma_shareable_lock(vma)) l->rw_sema.up_write();
}
static bool hugetlb_vma_trylock_write(vm_area_struct* vma) {
  KERNEL_FRAME();
  hugetlb_vma_lock* l = vma_shareable_lock(vma);
  return !l || l->rw_sema.down_write_trylock();
}
// __hugetlb_vma_unlock_write_free (mm/hugetlb.c): vm_private_data cleared, then the lock
// released and freed: from now on the VMA is not shareable.
static void hugetlb_vma_unlock_write_free(vm_area_struct* vma) {
  KERNEL_FRAME_AS("__hugetlb_vma_unlock_write_free");
  hugetlb_vma_lock* l = vma_shareable_lock(vma);
  if (!l) return;
  l->attached($) = false;
  l->rw_sema.up_write();
}

// i_mmap_assert_write_locked and hugetlb_vma_assert_locked (lockdep), on the ghost records.
static void assert_unshare_locked(vm_area_struct* vma) {
  address_space* m = vma->vm_file->f_mapping;
  VM_CHECK(m->i_mmap_rwsem->held_write_by_current(), "lock not held",
           "huge_pmd_unshare in vma %d without i_mmap_rwsem of %s held for write", vma->id, m->name);
  hugetlb_vma_lock* l = vma_shareable_lock(vma);
  VM_CHECK(!l || l->rw_sema.held_write_by_current(), "lock not held",
           "huge_pmd_unshare in vma %d without its hugetlb vma_lock", vma->id);
}

// hugetlb_walk (include/linux/hugetlb.h): the pud entry of addr's PMD table in vma's mm, or null.
static table_page* hugetlb_walk(vm_area_struct* vma, unsigned long addr, const char* who) {
  KERNEL_FRAME();
  return descend_to(vma_pgtables(vma), addr, PMD_TABLE, who, vma->id);
}

// page_table_shareable (mm/hugetlb.c): svma's address for page idx if its PMD table there could
// be vma's, or 0. It needs the whole aligned 1 GiB inside svma, at the same offset within the
// PUD as addr, and svma's vma_lock.
static unsigned long page_table_shareable(vm_area_struct* svma, vm_area_struct* vma, unsigned long addr,
                                          unsigned long idx) {
  unsigned long saddr = ((idx - svma->vm_pgoff) << PAGE_SHIFT) + svma->vm_start;
  unsigned long sbase = saddr & PUD_MASK, s_end = sbase + PUD_SIZE;
  if (((addr >> PMD_SHIFT) & 511) != ((saddr >> PMD_SHIFT) & 511)) return 0;  // pmd_index
  if (sbase < svma->vm_start || s_end > svma->vm_end) return 0;               // range_in_vma
  if (!vma_shareable_lock(svma)) {
    if (svma->vm_private_data) g_hugetlb_share_refused = true;  // the final zap freed its lock
    return 0;
  }
  return saddr;
}

// want_pmd_share (mm/hugetlb.c): a shared mapping with its vma_lock that covers addr's whole PUD.
static bool want_pmd_share(vm_area_struct* vma, unsigned long addr) {
  KERNEL_FRAME();
  unsigned long start = addr & PUD_MASK;
  const bool covers_pud_end = start + PUD_SIZE <= vma->vm_end || mutant(Mutant::want_pmd_share_ignores_vma_end);
  return vma->shared_maywrite && vma_shareable_lock(vma) && vma->vm_start <= start && covers_pud_end;
}

// A PMD table is shared only by VMAs that each map the whole gigabyte it covers: through the
// shared table, a shorter VMA's process would reach the other processes' pages outside its own
// range (and a mapping it makes there would write into their table: b30c14cd6102 unshares
// when a split leaves a VMA short).
static void check_shares_whole_pud(vm_area_struct* v, unsigned long addr) {
  const unsigned long base = addr & PUD_MASK;
  VM_CHECK(v->vm_start <= base && base + PUD_SIZE <= v->vm_end, "page tables",
           "vma %d [%#lx, %#lx) of %s maps a shared PMD table covering [%#lx, %#lx), more than the vma", v->id,
           v->vm_start, v->vm_end, v->vm_mm->name, base, base + PUD_SIZE);
}

// huge_pmd_share (mm/hugetlb.c): pud is vma's none pud entry for addr. Returns it, populated
// with another process's PMD table or, when none can be shared, a new one of its own.
static table_page* huge_pmd_share(vm_area_struct* vma, unsigned long addr, table_page* pud, int seen) {
  KERNEL_FRAME();
  const char* who = "huge_pmd_share";
  address_space* mapping = vma->vm_file->f_mapping;
  unsigned long idx = ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
  i_mmap_lock_read(mapping);
  table_page* spte = nullptr;
  vma_interval_tree_foreach(mapping, idx, idx, [&](vm_area_struct* svma) {
    if (spte || svma == vma) return;
    unsigned long saddr = page_table_shareable(svma, vma, addr, idx);
    if (!saddr) return;
    if (table_page* s = hugetlb_walk(svma, saddr, who)) {
      spte = page_of(s);
      check_shares_whole_pud(svma, saddr);
      spte->pmd_pts.fetch_add(1, rl::memory_order_relaxed);  // ptdesc_pmd_pts_inc
      check_deref(vma_pgtables(svma), s, who, svma->id);
    }
  });
  if (spte) {
    // Under mm->page_table_lock: populate the pud entry with the shared table if it is still
    // none (one step: the recheck and pud_populate, so only lockdep sees the lock), else drop
    // the count taken above.
    if (pt_populate_new(pud, seen, spte)) {
      g_hugetlb_pmd_shared = true;
      check_shares_whole_pud(vma, addr);
    } else {
      g_hugetlb_share_lost_race = true;
      if (!mutant(Mutant::huge_pmd_share_keeps_count_on_lost_race))
        spte->pmd_pts.fetch_sub(1, rl::memory_order_relaxed);  // ptdesc_pmd_pts_dec
    }
  }
  int entry = pud->state.load(rl::memory_order_acquire);  // pmd_alloc: pud_none(*pud)
  if (entry != PT_PRESENT) pt_populate_new(pud, entry);
  i_mmap_unlock_read(mapping);
  return pud;
}

// huge_pte_alloc (mm/hugetlb.c, the generic one x86-64 uses) for a 2 MiB page: the pud entry.
static table_page* huge_pte_alloc(vm_area_struct* vma, unsigned long addr) {
  KERNEL_FRAME();
  mm_pgtables* pt = vma_pgtables(vma);
  table_page* pud_table = pt->slot(PUD_TABLE, addr);
  int e = pud_table->state.load(rl::memory_order_acquire);  // pud_alloc: pgd entry none?
  if (e != PT_PRESENT) pt_populate_new(pud_table, e);
  table_page* pud = pt->slot(PMD_TABLE, addr);
  int entry = pud->state.load(rl::memory_order_acquire);
  if (want_pmd_share(vma, addr) && entry != PT_PRESENT) return huge_pmd_share(vma, addr, pud, entry);
  if (entry != PT_PRESENT) pt_populate_new(pud, entry);  // pmd_alloc
  return pud;
}

void hugetlb_fault(vm_area_struct* vma, unsigned long addr) {
  KERNEL_FRAME();
  LOG_TASK("hugetlb page fault (hugetlb_fault)");
  hugetlb_vma_lock_read(vma);
  table_page* pud = huge_pte_alloc(vma, addr);
  page_of(pud)->ptes.store(1, rl::memory_order_relaxed);  // set_huge_pte_at
  check_deref(vma_pgtables(vma), pud, "hugetlb_fault", vma->id);
  hugetlb_vma_unlock_read(vma);
}

// __huge_pmd_unshare (mm/hugetlb.c) and tlb_unshare_pmd_ptdesc (include/asm-generic/tlb.h):
// if the PMD table pud points to is shared, clear pud and drop the count. Returns 1 if it did;
// *fully whether the table has no other sharer left.
static int huge_pmd_unshare(vm_area_struct* vma, table_page* pud, bool* fully) {
  KERNEL_FRAME();
  table_page* page = page_of(pud);
  if (mutant(Mutant::huge_pmd_unshare_ignores_sharing)) return 0;
  if (page->pmd_pts.load(rl::memory_order_relaxed) == 0) return 0;  // !ptdesc_pmd_is_shared
  assert_unshare_locked(vma);
  pud->state.store(PT_NONE, rl::memory_order_relaxed);  // pud_clear
  pud->ghost_state = PT_NONE;
  pud->shared = nullptr;
  VM_CHECK(page->ghost_users >= 2, "page-table leak",
           "vma %d of %s unshared PMD table %#lx that no other process maps: it is never freed", vma->id,
           vma->vm_mm->name, page->base);
  page->ghost_users--;
  if (page->pmd_pts.fetch_sub(1, rl::memory_order_relaxed) == 1) *fully = true;
  g_hugetlb_unshared = true;
  return 1;
}

// __unmap_hugepage_range (mm/hugetlb.c) of [start, end), whole PUDs: the caller holds the
// vma_lock and i_mmap_rwsem for write. One step per PMD table (its entries are one word).
static void unmap_hugepage_range_locked(vm_area_struct* vma, unsigned long start, unsigned long end) {
  KERNEL_FRAME_AS("__unmap_hugepage_range");
  const char* who = "__unmap_hugepage_range";
  bool fully_unshared = false;
  for (unsigned long a = start; a < end; a = (a & PUD_MASK) + PUD_SIZE) {
    table_page* pud = hugetlb_walk(vma, a, who);
    if (!pud) continue;  // address |= last_addr_mask
    if (huge_pmd_unshare(vma, pud, &fully_unshared)) continue;
    page_of(pud)->ptes.store(0, rl::memory_order_relaxed);  // huge_ptep_get_and_clear
    check_deref(vma_pgtables(vma), pud, who, vma->id);
  }
  // huge_pmd_unshare_flush: tlb_flush_unshared_tables' IPI once a table is no longer shared.
  if (fully_unshared) synchronize_rcu();
}

// adjust_range_if_pmd_sharing_possible (mm/hugetlb.c) of the VMA's whole range: whole PUDs.
static void adjust_range_if_pmd_sharing_possible(vm_area_struct* vma, unsigned long* start, unsigned long* end) {
  KERNEL_FRAME();
  unsigned long v_start = (vma->vm_start + PUD_SIZE - 1) & PUD_MASK, v_end = vma->vm_end & PUD_MASK;
  if (!vma->shared_maywrite || v_end <= v_start || *end <= v_start || *start >= v_end) return;
  if (*start > v_start) *start &= PUD_MASK;
  if (*end < v_end) *end = (*end + PUD_SIZE - 1) & PUD_MASK;
}

void unmap_hugetlb_vma_final(vm_area_struct* vma) {
  KERNEL_FRAME_AS("unmap_single_vma");
  address_space* mapping = vma->vm_file->f_mapping;
  unsigned long start = vma->vm_start, end = vma->vm_end;
  // __hugetlb_zap_begin
  adjust_range_if_pmd_sharing_possible(vma, &start, &end);
  if (mutant(Mutant::hugetlb_zap_begin_takes_i_mmap_first)) {
    i_mmap_lock_write(mapping);
    hugetlb_vma_lock_write(vma);
  } else {
    hugetlb_vma_lock_write(vma);
    i_mmap_lock_write(mapping);
  }
  unmap_hugepage_range_locked(vma, start, end);
  // __hugetlb_zap_end, ZAP_FLAG_UNMAP: free the vma_lock before releasing i_mmap_rwsem.
  if (mutant(Mutant::hugetlb_zap_end_keeps_vma_lock))
    hugetlb_vma_unlock_write(vma);
  else
    hugetlb_vma_unlock_write_free(vma);
  i_mmap_unlock_write(mapping);
}

void hugetlb_vmtruncate(address_space* mapping) {
  KERNEL_FRAME();
  LOG_TASK("hugetlbfs truncation (hugetlb_vmtruncate)");
  i_mmap_lock_write(mapping);
  // hugetlb_vmdelete_list: the VMAs of i_mmap mapping the range (the whole file).
  vma_interval_tree_foreach(mapping, 0, ~0UL, [&](vm_area_struct* vma) {
    if (mutant(Mutant::vmdelete_list_waits_for_vma_lock)) {
      hugetlb_vma_lock_write(vma);
    } else if (!hugetlb_vma_trylock_write(vma)) {
      g_hugetlb_vma_lock_contended = true;
      return;
    }
    // unmap_hugepage_range: its own mmu_gather around __unmap_hugepage_range.
    unsigned long start = vma->vm_start, end = vma->vm_end;
    adjust_range_if_pmd_sharing_possible(vma, &start, &end);
    tlb_gather_mmu();
    unmap_hugepage_range_locked(vma, start, end);
    tlb_finish_mmu();
    hugetlb_vma_unlock_write(vma);
  });
  i_mmap_unlock_write(mapping);
}
