#include "model/actors.hpp"

// vma_interval_tree_foreach over [first, last] (mm/interval_tree.c): the VMAs of the tree, in id
// order (the model's tree is a set), that map some page offset in the range.
template <class Fn>
static void vma_interval_tree_foreach(address_space* mapping, unsigned long first, unsigned long last, Fn fn) {
  unsigned tree = mapping->i_mmap($);
  for (int i = 0; i < MAX_VMAS; i++) {
    if (!(tree >> i & 1)) continue;
    vm_area_struct* v = g_vma_by_id[i];
    unsigned long v_last = v->vm_pgoff + ((v->vm_end - v->vm_start) >> PAGE_SHIFT) - 1;
    if (v->vm_pgoff <= last && first <= v_last) fn(v);
  }
}

// Every reader of i_mmap holds the mapping's i_mmap_rwsem (lockdep's i_mmap_assert_locked).
static void i_mmap_assert_read_locked(address_space* mapping, const char* who) {
  VM_CHECK(mapping->i_mmap_rwsem->held_read_by_current(), "lock not held", "%s reads i_mmap of %s without its read lock",
           who, mapping->name);
}

// vma_address (mm/internal.h) for a one-page folio at pgoff.
static unsigned long vma_address(vm_area_struct* v, unsigned long pgoff) {
  return v->vm_start + ((pgoff - v->vm_pgoff) << PAGE_SHIFT);
}

void rmap_walk_file(address_space* mapping, unsigned long pgoff, bool try_lock) {
  LOG_TASK(try_lock ? "reclaim's rmap walker (rmap_walk_file, try_lock)" : "rmap walker (rmap_walk_file)");
  const char* who = try_lock ? "reclaim's rmap walker (try_lock)" : "rmap walker";
  if (!i_mmap_trylock_read(mapping)) {
    if (try_lock && !mutant(Mutant::trylock_walker_ignores_failure)) return;  // rwc->contended
    if (!try_lock) i_mmap_lock_read(mapping);
  }
  i_mmap_assert_read_locked(mapping, who);
  // rmap_one, e.g. folio_referenced_one: page_vma_mapped_walk down to the PTE table.
  vma_interval_tree_foreach(mapping, pgoff, pgoff,
                            [&](vm_area_struct* v) { walk_to_pte_table(vma_pgtables(v), vma_address(v, pgoff), who, v->id); });
  if (mapping->i_mmap_rwsem->held_read_by_current()) i_mmap_unlock_read(mapping);
}

void unmap_mapping_range(address_space* mapping) {
  LOG_TASK("truncation (unmap_mapping_range)");
  const char* who = "truncation (unmap_mapping_range)";
  i_mmap_lock_read(mapping);
  i_mmap_assert_read_locked(mapping, who);
  vma_interval_tree_foreach(mapping, 0, ALL_PGOFFS, [&](vm_area_struct* v) {
    zap_pte_tables(vma_pgtables(v), v->vm_start, v->vm_end, who, v->id);  // zap_page_range_single
  });
  i_mmap_unlock_read(mapping);
}

void retract_page_tables(address_space* mapping, unsigned long pgoff) {
  LOG_TASK("khugepaged (retract_page_tables)");
  const char* who = "khugepaged (retract_page_tables)";
  if (!mutant(Mutant::khugepaged_without_read_lock)) i_mmap_lock_read(mapping);
  i_mmap_assert_read_locked(mapping, who);
  vma_interval_tree_foreach(mapping, pgoff, pgoff, [&](vm_area_struct* v) {
    if (v->anon_vma) return;
    unsigned long addr = vma_address(v, pgoff);
    if ((addr & ~PMD_MASK) || v->vm_end < addr + PMD_SIZE) return;
    mm_struct* mm = v->vm_mm;
    // find_pmd_or_thp_or_none: the descent to the pmd entry.
    table_page* pte_table = descend(&mm->pgtables, addr, who, v->id);
    if (!pte_table) return;
    if (mm->exiting) return;  // hpage_collapse_test_exit
    // pmd_lock, pmdp_collapse_flush, pte_free_defer. The kernel's clear is under the pmd lock,
    // which free_pgtables does not take: what keeps them apart is that teardown hides the VMA
    // from i_mmap first. The exchange tells a table freed by the other side in between.
    int old = pte_table->state.exchange(PT_RETRACTED, rl::memory_order_relaxed);
    pte_table->ghost_state = PT_RETRACTED;
    VM_CHECK(old == PT_PRESENT, "double free", "%s retracted PTE table %#lx of %s (vma %d) that %s", who,
             pte_table->base, mm->name, v->id, old == PT_FREED ? "free_pgd_range freed" : "was already retracted");
  });
  if (!mutant(Mutant::khugepaged_without_read_lock)) i_mmap_unlock_read(mapping);
}

// mapping_map_writable (include/linux/fs.h): atomic_inc_unless_negative.
static bool mapping_map_writable(address_space* mapping) {
  int v = mapping->i_mmap_writable.load(rl::memory_order_relaxed);
  do {
    if (v < 0) return false;  // -EPERM: writes are denied
  } while (!mapping->i_mmap_writable.compare_exchange_weak(v, v + 1, rl::memory_order_relaxed));
  mapping->ghost_i_mmap_writable = v + 1;
  mapping->ghost_map_writable_holds++;
  return true;
}

// mapping_unmap_writable (include/linux/fs.h): atomic_dec.
static void mapping_unmap_writable(address_space* mapping) {
  mapping->ghost_i_mmap_writable = mapping->i_mmap_writable.fetch_sub(1, rl::memory_order_relaxed) - 1;
  mapping->ghost_map_writable_holds--;
}

// unmap_region (mm/mmap.c, v6.11) for the VMAs of *detached (munmap's detached tree, or the
// mm's tree from the failed VMA on), unmap_vmas left out.
static void unmap_region(mm_struct* mm, mm_struct* detached, vm_area_struct* prev, vm_area_struct* next,
                         bool mm_wr_locked) {
  g_exiting_mm[rl::thread_index()] = detached;
  ma_state mas{mm, detached->vmas, detached->mt_entries};
  unsigned long floor = prev && !mutant(Mutant::unmap_region_floor_first_user) ? prev->vm_end : FIRST_USER_ADDRESS;
  unsigned long ceiling = next && !mutant(Mutant::unmap_region_ceiling_top) ? next->vm_start : USER_PGTABLES_CEILING;
  teardown_free_pgtables(&mas, detached->vmas[0], floor, ceiling, mm_wr_locked);
}

void mmap_region(vm_area_struct* vma, vm_area_struct* prev, vm_area_struct* next, bool call_mmap_fails,
                 mm_struct* detached) {
  LOG_TASK("mmap (mmap_region)");
  file* f = vma->vm_file;
  bool writable_file_mapping = false;
  if (vma_is_shared_maywrite(vma)) {
    if (!mapping_map_writable(f->f_mapping)) return;
    writable_file_mapping = true;
  }
  if (!call_mmap_fails) {
    vma_link_file(vma);
  } else {  // unmap_and_free_vma
    if (!mutant(Mutant::mmap_error_keeps_vm_file)) vma->vm_file = nullptr;  // fput
    // vma_iter_set(&vmi, vma->vm_end): free_pgtables walks the mm's own tree from the failed
    // VMA on, so that its mas_find meets next, beyond the ceiling, and stops there.
    detached->vmas[0] = vma;
    detached->nr = 1;
    detached->vmas[1] = next;
    detached->mt_entries = 1 + (next != nullptr);
    unmap_region(vma->vm_mm, detached, prev, next, true);
  }
  if (writable_file_mapping) mapping_unmap_writable(f->f_mapping);
}

void do_munmap(mm_struct* mm, mm_struct* detached, vm_area_struct* prev, vm_area_struct* next) {
  LOG_TASK("munmap (do_munmap)");
  // The detached VMAs already left mm's tree (vms_gather_munmap_vmas): set-up. mmap_write_downgrade.
  unmap_region(mm, detached, prev, next, false);
}
