#include "model/actors.hpp"
#include "model/call_chain.hpp"

#include <algorithm>

#include "model/fault.hpp"

#include "model/mmap_lock.hpp"
#include "model/mmu_gather.hpp"
#include "model/rcu.hpp"

// Every reader of i_mmap holds the mapping's i_mmap_rwsem (lockdep's i_mmap_assert_locked).
static void i_mmap_assert_read_locked(address_space* mapping, const char* who) {
  VM_CHECK(mapping->i_mmap_rwsem->held_read_by_current(), "lock not held", "%s reads i_mmap of %s without its read lock",
           who, mapping->name);
}

// vma_address (mm/internal.h) for a one-page folio at pgoff.
static unsigned long vma_address(vm_area_struct* v, unsigned long pgoff) {
  if (mutant(Mutant::vma_address_ignores_vm_pgoff)) return v->vm_start + (pgoff << PAGE_SHIFT);
  return v->vm_start + ((pgoff - v->vm_pgoff) << PAGE_SHIFT);
}

// Whether a mapped page is file page `index` of `mapping`.
static bool is_file_page(const mapped_page& m, const address_space* mapping, unsigned long index) {
  return (m.kind == page_kind::file) & (m.mapping == mapping) & (m.index == index);
}

// What an rmap walker needs of page_vma_mapped_walk: the address it computed for the folio is
// the one where vma maps it. The walker's own page mapped anywhere else in vma is a PTE it
// missed (folio_referenced counts no reference, try_to_unmap leaves a mapping behind).
static void check_walker_address(vm_area_struct* v, address_space* mapping, unsigned long pgoff,
                                 unsigned long addr, const char* who) {
  for_each_mapped(v, v->vm_start, v->vm_end, [&](const mapped_page& m) {
    VM_CHECK(!is_file_page(m, mapping, pgoff) || m.addr == addr, "rmap address",
             "%s looked for page %#lx of %s in vma %d at %#lx, but the vma maps it at %#lx (vm_start %#lx, "
             "vm_pgoff %#lx)",
             who, pgoff, mapping->name, v->id, addr, m.addr, v->vm_start, v->vm_pgoff);
  });
}

void rmap_walk_file(address_space* mapping, unsigned long pgoff, bool try_lock) {
  KERNEL_FRAME();
  LOG_TASK(try_lock ? "reclaim's rmap walker (rmap_walk_file, try_lock)" : "rmap walker (rmap_walk_file)");
  const char* who = try_lock ? "reclaim's rmap walker (try_lock)" : "rmap walker";
  if (!i_mmap_trylock_read(mapping)) {
    if (try_lock && !mutant(Mutant::trylock_walker_ignores_failure)) return;  // rwc->contended
    if (!try_lock) i_mmap_lock_read(mapping);
  }
  i_mmap_assert_read_locked(mapping, who);
  // rmap_one, e.g. folio_referenced_one: page_vma_mapped_walk down to the PTE table.
  vma_interval_tree_foreach(mapping, pgoff, pgoff, [&](vm_area_struct* v) {
    g_rmap_walker_met |= 1u << v->id;
    unsigned long addr = vma_address(v, pgoff);
    walk_to_pte_table(vma_pgtables(v), addr, who, v->id);
    check_walker_address(v, mapping, pgoff, addr, who);
  });
  if (mapping->i_mmap_rwsem->held_read_by_current()) i_mmap_unlock_read(mapping);
}

// A hole's zap of one VMA, [start, end), must cover exactly the hole's pages there: every PTE
// of the VMA whose page is in [first, last] of the file (an anonymous page by the file page its
// address stands for), and nothing else, the neighbours' PTEs in the same tables included.
static void check_zap_covers_hole(vm_area_struct* v, unsigned long start, unsigned long end, unsigned long first,
                                  unsigned long last, const char* who) {
  for_each_mapped(v, std::min(start, v->vm_start), std::max(end, v->vm_end), [&](const mapped_page& m) {
    bool in_vma = (m.addr >= v->vm_start) & (m.addr < v->vm_end);
    unsigned long index = m.kind == page_kind::file ? m.index : linear_page_index(v, m.addr);
    bool in_hole = in_vma & (index >= first) & (index <= last);
    bool in_zap = (m.addr >= start) & (m.addr < end);
    VM_CHECK(in_zap == in_hole, "zap range",
             "%s zaps [%#lx, %#lx) of vma %d (vm_start %#lx, vm_pgoff %#lx) for the hole [%#lx, %#lx] of %s: it %s "
             "the PTE at %#lx, which maps %s page %#lx%s",
             who, start, end, v->id, v->vm_start, v->vm_pgoff, first, last,
             v->vm_file ? v->vm_file->f_mapping->name : "?", in_zap ? "clears" : "misses", m.addr,
             m.kind == page_kind::file ? "file" : "anonymous", index, in_vma ? "" : " of another vma");
  });
}

// The anonymous pages (a private copy's written pages) vma maps in [start, end).
static int anon_pages_in(vm_area_struct* v, unsigned long start, unsigned long end) {
  int n = 0;
  for_each_mapped(v, start, end, [&](const mapped_page& m) { n += m.kind == page_kind::anon; });
  return n;
}

// unmap_mapping_range_tree (mm/memory.c): zap the part of each VMA of i_mmap that maps
// [first, last] (unmap_mapping_range_vma, zap_page_range_single with the caller's details).
static void unmap_mapping_range_tree(address_space* mapping, unsigned long first, unsigned long last,
                                     bool even_cows, const char* who) {
  vma_interval_tree_foreach(mapping, first, last, [&](vm_area_struct* v) {
    unsigned long vba = v->vm_pgoff, vea = vba + ((v->vm_end - v->vm_start) >> PAGE_SHIFT) - 1;
    unsigned long zba = first > vba ? first : vba, zea = last < vea ? last : vea;
    unsigned long start = ((zba - vba) << PAGE_SHIFT) + v->vm_start;
    unsigned long end = ((zea - vba + 1) << PAGE_SHIFT) + v->vm_start;
    if (mutant(Mutant::unmap_mapping_range_tree_ignores_vm_pgoff)) {
      start = (zba << PAGE_SHIFT) + v->vm_start;
      end = ((zea + 1) << PAGE_SHIFT) + v->vm_start;
    }
    check_zap_covers_hole(v, start, end, first, last, who);
    // Without even_cows (a hole punched, not a truncation), a private copy's written pages stay.
    int cows = anon_pages_in(v, start, end);
    bool keep_anon = !even_cows && !mutant(Mutant::punch_hole_zaps_private_cows);
    zap_pte_tables(vma_pgtables(v), start, end, who, v->id, keep_anon);
    int kept = anon_pages_in(v, start, end);
    VM_CHECK(even_cows || kept == cows, "zap range",
             "%s zapped [%#lx, %#lx) of vma %d without even_cows and dropped %d of the private copy's %d "
             "anonymous pages there: what was written is lost",
             who, start, end, v->id, cows - kept, cows);
  });
}

void unmap_mapping_range(address_space* mapping) {
  KERNEL_FRAME();
  LOG_TASK("truncation (unmap_mapping_range)");
  const char* who = "truncation (unmap_mapping_range)";
  i_mmap_lock_read(mapping);
  i_mmap_assert_read_locked(mapping, who);
  unmap_mapping_range_tree(mapping, 0, ALL_PGOFFS, true, who);  // truncate_pagecache: even_cows
  i_mmap_unlock_read(mapping);
}

void unmap_mapping_pages(address_space* mapping, unsigned long start, unsigned long nr, bool even_cows) {
  KERNEL_FRAME();
  LOG_TASK("hole punch (unmap_mapping_pages)");
  const char* who = "hole punch (unmap_mapping_pages)";
  unsigned long last = start + nr - 1;
  if (last < start) last = ALL_PGOFFS;  // overflow: to the end of the file
  i_mmap_lock_read(mapping);
  i_mmap_assert_read_locked(mapping, who);
  unmap_mapping_range_tree(mapping, start, last, even_cows, who);
  i_mmap_unlock_read(mapping);
}

// What retract_page_tables drops with a PTE table must be what the huge page maps once a fault
// maps it by its PMD: the folio's page pgoff + i at the PMD's i-th page, all of them inside the
// VMA. Anything else in the table (a written private copy's anonymous page, a page of another
// VMA, a page at another offset) would be lost with it.
static void check_retracted_pages(vm_area_struct* v, table_page* pte_table, address_space* mapping,
                                  unsigned long pgoff, const char* who) {
  unsigned long haddr = pte_table->base;
  VM_CHECK(v->vm_start <= haddr && haddr + PMD_SIZE <= v->vm_end, "page lost",
           "%s retracts PTE table %#lx of %s for vma %d [%#lx, %#lx), which the huge PMD [%#lx, %#lx) would "
           "overrun",
           who, haddr, v->vm_mm->name, v->id, v->vm_start, v->vm_end, haddr, haddr + PMD_SIZE);
  for (int i = 0; i < pte_table->nr_mapped; i++) {
    const mapped_page& m = pte_table->mapped[i];
    unsigned long want = pgoff + ((m.addr - haddr) >> PAGE_SHIFT);
    VM_CHECK(is_file_page(m, mapping, want), "page lost",
             "%s retracts PTE table %#lx of %s (vma %d), whose PTE at %#lx maps %s %#lx, where the huge page "
             "maps page %#lx of %s: %s",
             who, haddr, v->vm_mm->name, v->id, m.addr, m.kind == page_kind::anon ? "anonymous page for" : "file page",
             m.index, want, mapping->name,
             m.kind == page_kind::anon ? "the private copy's written page is lost" : "that mapping is lost");
  }
}

void retract_page_tables(address_space* mapping, unsigned long pgoff) {
  KERNEL_FRAME();
  LOG_TASK("khugepaged (retract_page_tables)");
  const char* who = "khugepaged (retract_page_tables)";
  if (!mutant(Mutant::khugepaged_without_read_lock)) i_mmap_lock_read(mapping);
  i_mmap_assert_read_locked(mapping, who);
  vma_interval_tree_foreach(mapping, pgoff, pgoff, [&](vm_area_struct* v) {
    if (vma_has_anon_vma(v)) return;  // READ_ONCE(vma->anon_vma): a private copy written to
    unsigned long addr = vma_address(v, pgoff);
    if (!mutant(Mutant::retract_ignores_huge_pmd_fit) && ((addr & ~PMD_MASK) || v->vm_end < addr + PMD_SIZE))
      return;
    mm_struct* mm = v->vm_mm;
    // find_pmd_or_thp_or_none: the descent to the pmd entry.
    table_page* pte_table = descend(&mm->pgtables, addr, who, v->id);
    if (!pte_table) return;
    if (mm->exiting) return;  // hpage_collapse_test_exit
    // pmd_lock, then the PTE table's lock (where the world models them), pmdp_collapse_flush,
    // pte_free_defer. free_pgtables takes neither lock: what keeps it apart is that teardown
    // hides the VMA from i_mmap first. The exchange tells a table freed by the other side.
    table_page* pmd_table = mm->pgtables.find(PMD_TABLE, addr);
    if (mm->pgtables.ptlocks) {
      ptlock_lock(&mm->pgtables, pmd_table, who);
      ptlock_lock(&mm->pgtables, pte_table, who);
    }
    auto unlock = [&] {
      if (!mm->pgtables.ptlocks) return;
      ptlock_unlock(pte_table);
      ptlock_unlock(pmd_table);
    };
    // Under the locks, the anon_vma check again: a racing UFFDIO_COPY may have made the VMA a
    // written private copy and filled a PTE of this table since the check above.
    if (!mutant(Mutant::retract_skips_anon_vma_recheck) && vma_has_anon_vma(v)) {
      g_retract_skipped_on_recheck = true;
      unlock();
      return;
    }
    int old = pte_table->state.exchange(PT_RETRACTED, rl::memory_order_relaxed);
    pte_table->ghost_state = PT_RETRACTED;
    // Which page the pmd held, read in the step that clears it: a fault or a copy may put a new
    // table page in the slot as soon as the pmd is none, and that one stays.
    int generation = pte_table->generation;
    VM_CHECK(old == PT_PRESENT, "double free", "%s retracted PTE table %#lx of %s (vma %d) that %s", who,
             pte_table->base, mm->name, v->id, old == PT_FREED ? "free_pgd_range freed" : "was already retracted");
    check_retracted_pages(v, pte_table, mapping, pgoff, who);  // what it mapped as the pmd is cleared
    unlock();
    // pte_free_defer: the page is freed by an RCU callback, after a grace period; pte_free would
    // free it at once under a lockless walker that read the pmd just before.
    if (!mutant(Mutant::retract_pte_free_at_once)) synchronize_rcu();
    if (pte_table->generation == generation) pte_table->ghost_page_freed = true;
  });
  if (!mutant(Mutant::khugepaged_without_read_lock)) i_mmap_unlock_read(mapping);
}

// mapping_map_writable (include/linux/fs.h): atomic_inc_unless_negative.
static bool mapping_map_writable(address_space* mapping) {
  KERNEL_FRAME();
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
  KERNEL_FRAME();
  mapping->ghost_i_mmap_writable = mapping->i_mmap_writable.fetch_sub(1, rl::memory_order_relaxed) - 1;
  mapping->ghost_map_writable_holds--;
}

// What every caller of free_pgtables here does around it: the VMAs of *detached (a detached
// tree, or the mm's own from a VMA on) between floor and ceiling, inside an mmu_gather.
static void free_detached_pgtables(mm_struct* mm, mm_struct* detached, unsigned long floor, unsigned long ceiling,
                                   bool mm_wr_locked) {
  g_exiting_mm[rl::thread_index()] = detached;
  ma_state mas{mm, detached->vmas, detached->mt_entries};
  tlb_gather_mmu();
  teardown_free_pgtables(&mas, detached->vmas[0], floor, ceiling, mm_wr_locked);
  tlb_finish_mmu();
}

// unmap_region (mm/mmap.c, v6.11) for the VMAs of *detached (munmap's detached tree, or the
// mm's tree from the failed VMA on), unmap_vmas left out.
static void unmap_region(mm_struct* mm, mm_struct* detached, vm_area_struct* prev, vm_area_struct* next,
                         bool mm_wr_locked) {
  unsigned long floor = prev && !mutant(Mutant::unmap_region_floor_first_user) ? prev->vm_end : FIRST_USER_ADDRESS;
  unsigned long ceiling = next && !mutant(Mutant::unmap_region_ceiling_top) ? next->vm_start : USER_PGTABLES_CEILING;
  free_detached_pgtables(mm, detached, floor, ceiling, mm_wr_locked);
}

void mmap_region(vm_area_struct* vma, vm_area_struct* prev, vm_area_struct* next, bool call_mmap_fails,
                 mm_struct* detached) {
  KERNEL_FRAME();
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
  KERNEL_FRAME();
  LOG_TASK("munmap (do_munmap)");
  // The detached VMAs already left mm's tree (vms_gather_munmap_vmas): set-up. mmap_write_downgrade.
  unmap_region(mm, detached, prev, next, false);
}

// vma_iter_store of a VMA over the range of mm->vmas[first, first + count) (or into the gap
// there, count 0), or, vma null, the range cleared (mas_store_gfp(NULL)): the maple tree.
static void vma_iter_store_range(mm_struct* mm, int first, int count, vm_area_struct* vma) {
  mm->mt_seq.store(mm->mt_seq.load(rl::memory_order_relaxed) + 1, rl::memory_order_release);
  int put = vma ? 1 : 0;
  int shift = put - count;
  if (shift < 0)
    for (int i = first + count; i < mm->nr; i++) mm->vmas[i + shift] = mm->vmas[i];
  else if (shift > 0)
    for (int i = mm->nr - 1; i >= first + count; i--) mm->vmas[i + shift] = mm->vmas[i];
  if (vma) mm->vmas[first] = vma;
  mm->nr += shift;
  mm->mt_entries = mm->nr;
}

// struct vma_munmap_struct (mm/vma.h), the part the model uses.
struct vma_munmap_struct {
  vm_area_struct *prev, *next;
  unsigned long unmap_start, unmap_end;
};

// vms_gather_munmap_vmas (mm/vma.c, v6.12), under mmap_lock held for write: mm->vmas[first,
// first + count) into *detached (they stay in the mm's tree), each write-locked and marked
// detached where it has a per-VMA lock; prev and next, and the floor and ceiling they give.
// Read under the write lock, so a stack that grew before is seen with its new start.
static vma_munmap_struct vms_gather_munmap_vmas(mm_struct* mm, int first, int count, mm_struct* detached) {
  KERNEL_FRAME();
  vma_munmap_struct vms;
  vms.prev = first > 0 ? mm->vmas[first - 1] : nullptr;
  vms.next = first + count < mm->nr ? mm->vmas[first + count] : nullptr;
  vms.unmap_start = vms.prev ? vms.prev->vm_end : FIRST_USER_ADDRESS;
  vms.unmap_end = vms.next ? vms.next->vm_start : USER_PGTABLES_CEILING;
  for (int i = 0; i < count; i++) {
    vm_area_struct* v = mm->vmas[first + i];
    if (v->vm_lock) {
      // vma_start_write waits for the faults holding the VMA's lock and keeps new ones out
      // until the downgrade; by then the VMA is detached and out of the tree.
      if (!mutant(Mutant::munmap_gathers_without_vma_start_write)) vma_start_write(v);
      vma_mark_detached(v->vm_lock);
    }
    detached->vmas[detached->nr++] = v;
  }
  detached->mt_entries = detached->nr;
  return vms;
}

void do_vmi_align_munmap(mm_struct* mm, int first, int count, mm_struct* detached) {
  KERNEL_FRAME();
  LOG_TASK("munmap (do_vmi_align_munmap)");
  mmap_write_lock(mm->mmap_lock);
  vma_munmap_struct vms = vms_gather_munmap_vmas(mm, first, count, detached);
  vma_iter_store_range(mm, first, count, nullptr);  // vma_iter_clear_gfp: the range leaves the tree
  // vms_complete_munmap_vmas
  mmap_write_downgrade(mm->mmap_lock);
  free_detached_pgtables(mm, detached, vms.unmap_start, vms.unmap_end, false);  // vms_clear_ptes
  mmap_read_unlock(mm->mmap_lock);
}

void __mmap_region(mm_struct* mm, vm_area_struct* vma, int first, int count, bool mmap_file_fails,
                   mm_struct* detached, mm_struct* undo) {
  KERNEL_FRAME();
  LOG_TASK("mmap MAP_FIXED (__mmap_region)");
  // Into a gap (count 0: vma_find finds none) the kernel skips the gather and takes prev and
  // next from vma_iter_next_rewind, which is what the model's gather does with no VMA.
  vma_munmap_struct vms = vms_gather_munmap_vmas(mm, first, count, detached);
  bool clear_ptes = count > 0;  // vms->clear_ptes, set by the gather (vms->nr_pages != 0)
  auto vms_clear_ptes = [&] {
    if (!clear_ptes) return;
    free_detached_pgtables(mm, detached, vms.unmap_start, vms.unmap_end, true);
    clear_ptes = false;
  };
  // vms_clean_up_area: before the driver's mmap can fill the range's tables again.
  if (!mutant(Mutant::mmap_clears_ptes_after_mmap_file)) vms_clear_ptes();
  // mmap_file: the driver's remap_pfn_range fills the new VMA's tables, a PTE per 2 MiB.
  for (unsigned long a = vma->vm_start; a < vma->vm_end; a = pt_addr_end(a, vma->vm_end, PMD_SIZE))
    install_pte(vma, a, "the driver's mmap (remap_pfn_range)");
  if (!mmap_file_fails) {
    vma_iter_store_range(mm, first, count, vma);
    vma_link_file(vma);
    vms_clear_ptes();  // vms_complete_munmap_vmas: nothing left to clear, the old VMAs are freed
    return;
  }
  // unmap_and_free_file_vma: fput, then unmap_region from the new VMA on (vma_iter_set to its
  // end, so that free_pgtables' mas_find meets next, beyond the ceiling, and stops there).
  vma->vm_file = nullptr;
  undo->vmas[0] = vma;
  undo->nr = 1;
  undo->vmas[1] = vms.next;
  undo->mt_entries = 1 + (vms.next != nullptr);
  unmap_region(mm, undo, vms.prev, vms.next, true);
  // vms_abort_munmap_vmas: old VMAs whose tables were cleared cannot come back: the range
  // becomes a gap, and vms_complete_munmap_vmas frees them.
  if (clear_ptes || mutant(Mutant::mmap_abort_reattaches_cleared_vmas)) return;  // reattach_vmas
  vma_iter_store_range(mm, first, count, nullptr);
}

void vm_mmap_pgoff(mm_struct* mm, vm_area_struct* vma, int first, int count, mm_struct* detached,
                   mm_struct* undo) {
  KERNEL_FRAME();
  LOG_TASK("mmap MAP_FIXED (vm_mmap_pgoff)");
  mmap_write_lock(mm->mmap_lock);  // mmap_write_lock_killable: no fatal signal here
  __mmap_region(mm, vma, first, count, false, detached, undo);
  mmap_write_unlock(mm->mmap_lock);  // no downgrade: init_vma_munmap's unlock is false for mmap
}

void dup_mmap_fails(mm_struct* child, mm_struct* parent, vm_area_struct* const* copies, int fail_at) {
  LOG_TASK("fork (dup_mmap), failing");
  // __mt_dup: the child's tree holds the parent's VMAs; nobody else sees the child yet.
  for (int i = 0; i < parent->nr; i++) child->vmas[i] = parent->vmas[i];
  child->nr = 0;
  child->mt_entries = parent->nr;
  for (int i = 0; i < parent->nr; i++) {
    vm_area_struct* tmp = copies[i];
    child->vmas[i] = tmp;  // vma_iter_bulk_store
    child->nr = i + 1;
    vma_link_file(tmp);  // vma_interval_tree_insert_after, under i_mmap_lock_write
    // copy_page_range: the first PTE of each 2 MiB; the failing copy stops after its first.
    for (unsigned long a = tmp->vm_start; a < tmp->vm_end; a = pt_addr_end(a, tmp->vm_end, PMD_SIZE)) {
      install_pte(tmp, a, "fork (copy_page_range)");
      if (i == fail_at) break;
    }
    if (i == fail_at) {
      // mpnt = vma_next: the marker goes where the next parent VMA is, so the failed copy, in
      // the tree and in i_mmap with some of its tables, is torn down with the others.
      int marked = mutant(Mutant::dup_mmap_marks_the_failed_copy) ? i : i + 1;
      if (marked < parent->nr) child->vmas[marked] = &g_xa_zero_entry;
      if (marked == i) child->nr = i;
      break;
    }
  }
  exit_mmap(child);  // copy_mm fails: mmput
}
