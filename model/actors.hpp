// The tasks that run concurrently with page-table teardown and go through i_mmap: rmap walkers,
// truncation, khugepaged, and mmap / munmap of another VMA. Each is the kernel function named,
// reduced to its i_mmap and page-table steps.
#pragma once
#include "model/mm.hpp"

// Ghost, per iteration: the VMAs (by id) an rmap walker met in i_mmap.
inline unsigned g_rmap_walker_met = 0;

// Every page the present PTE tables of vma's mm map in [start, end) (ghost; tables whose entry
// was cleared are skipped: what they mapped went with them). The checks read it in the step of
// the caller's last instrumented access, outside the page-table locks, so the reduction orders
// a task that changes what a table maps against them only where both touch the same table's
// word: the scenarios where such a task races a zap or a walker (the fork_fails_* scenarios'
// copy_page_range) are searched without the reduction. The retraction's check runs in the
// step that clears the pmd, under the PTE lock where the world has the page-table locks.
template <class Fn>
void for_each_mapped(vm_area_struct* v, unsigned long start, unsigned long end, Fn fn) {
  mm_pgtables* pt = vma_pgtables(v);
  for (int i = 0; i < pt->n; i++) {
    table_page& t = pt->pages[i];
    if (t.level != PTE_TABLE || t.ghost_state != PT_PRESENT) continue;
    for (int j = 0; j < t.nr_mapped; j++)
      if (t.mapped[j].addr >= start && t.mapped[j].addr < end) fn(t.mapped[j]);
  }
}

// Every page offset of the file: a walk over the whole of i_mmap (truncation of the file).
constexpr unsigned long ALL_PGOFFS = ~0UL;

// rmap_walk_file (mm/rmap.c) for the folio at file page pgoff: under i_mmap_lock_read, every
// VMA of i_mmap that maps pgoff, page_vma_mapped_walk at its address. With try_lock (reclaim's
// folio_referenced / try_to_unmap through shrink_folio_list) it gives up on contention.
void rmap_walk_file(address_space* mapping, unsigned long pgoff, bool try_lock = false);
// unmap_mapping_range (mm/memory.c) over the whole file, with even_cows (truncate_pagecache):
// under i_mmap_lock_read, zap_page_range_single on every VMA of i_mmap.
void unmap_mapping_range(address_space* mapping);
// unmap_mapping_pages (mm/memory.c): the same for file pages [start, start + nr), a hole. A hole
// punched (truncate_pagecache_range) passes even_cows false: a private copy's written pages
// there stay. Each VMA's zap must cover exactly the hole's PTEs ("zap range").
void unmap_mapping_pages(address_space* mapping, unsigned long start, unsigned long nr, bool even_cows);
// Ghost, per iteration: retract_page_tables skipped a VMA on its anon_vma recheck under the locks.
inline bool g_retract_skipped_on_recheck = false;
// retract_page_tables (mm/khugepaged.c) after a collapse at pgoff: under i_mmap_lock_read, free
// the PTE table of every VMA without anon_vma that maps the whole aligned 2 MiB around pgoff
// (pte_free_defer), the anon_vma check repeated under the page-table locks. What the table
// maps must be the huge page's pages at their places ("page lost").
void retract_page_tables(address_space* mapping, unsigned long pgoff);

// mmap_region (mm/mmap.c, v6.11), from the mapping of the file on: mapping_map_writable for a
// shared writable VMA, call_mmap (the driver may fill page tables: they are set up already),
// then vma_link_file, or, when call_mmap fails, the unmap_and_free_vma error path: vm_file
// cleared, unmap_region, mapping_unmap_writable. prev/next are the VMA's neighbours in its mm;
// *detached receives the teardown's ghost record (model/mm.hpp's mm_struct bookkeeping).
void mmap_region(vm_area_struct* vma, vm_area_struct* prev, vm_area_struct* next, bool call_mmap_fails,
                 mm_struct* detached);

// do_vmi_align_munmap + unmap_region (mm/mmap.c, v6.11) for the VMAs detached into *detached
// (a maple tree of their own, mas_detach): the mmap lock is downgraded (mm_wr_locked false),
// then free_pgtables with prev's end as floor and next's start as ceiling.
void do_munmap(mm_struct* mm, mm_struct* detached, vm_area_struct* prev, vm_area_struct* next);

// do_vmi_align_munmap (mm/vma.c, v6.12) of mm->vmas[first, first + count), all of it in the
// thread, for the scenarios where another task of the mm takes mm->mmap_lock: under
// mmap_write_lock, vms_gather_munmap_vmas (the VMAs into *detached; unmap_start and unmap_end
// from prev's end and next's start) and vma_iter_clear_gfp; then vms_complete_munmap_vmas:
// mmap_write_downgrade, vms_clear_ptes (free_pgtables between unmap_start and unmap_end;
// unmap_vmas left out), mmap_read_unlock.
void do_vmi_align_munmap(mm_struct* mm, int first, int count, mm_struct* detached);

// dup_mmap (kernel/fork.c, v6.12) of parent into child, failing in copy_page_range of the VMA
// parent->vmas[fail_at] after filling its first PTE table: __mt_dup copies the parent's tree
// (the child's holds the parent's VMAs until each is replaced by its copy), then for each VMA
// the copy copies[i] (vm_area_dup, prepared at set-up) replaces it (vma_iter_bulk_store), is
// linked into its file's i_mmap after the parent's (vma_interval_tree_insert_after, under
// i_mmap_lock_write) and gets its page tables (copy_page_range: one PTE per 2 MiB). On the
// failure, XA_ZERO_ENTRY marks the VMA after the failed copy; then the child is torn down
// (copy_mm's mmput: exit_mmap), which must stop at the marker.
void dup_mmap_fails(mm_struct* child, mm_struct* parent, vm_area_struct* const* copies, int fail_at);

// __mmap_region (mm/mmap.c, v6.12) of the new VMA `vma` with MAP_FIXED over mm->vmas[first,
// first + count), the mmap lock held for write throughout: vms_gather_munmap_vmas (the old VMAs
// into *detached; they stay in the mm's tree), vms_clean_up_area (vms_clear_ptes: free_pgtables
// over them between prev's end and next's start, while they are still in the tree), the
// driver's mmap_file filling the new VMA's page tables (remap_pfn_range), then either
// vma_iter_store + vma_link_file and vms_complete_munmap_vmas, or, when mmap_file fails after
// filling them, unmap_and_free_file_vma (vm_file cleared, unmap_region of the new VMA between
// prev and next; *undo receives its record) and vms_abort_munmap_vmas (the range left a gap).
void __mmap_region(mm_struct* mm, vm_area_struct* vma, int first, int count, bool mmap_file_fails,
                   mm_struct* detached, mm_struct* undo);

// vm_mmap_pgoff (mm/util.c, v6.12) of a MAP_FIXED mapping, for the scenarios where another
// task of the mm takes mm->mmap_lock: __mmap_region (above; its mmap_file succeeds) between
// mmap_write_lock and mmap_write_unlock, which mmap never downgrades.
void vm_mmap_pgoff(mm_struct* mm, vm_area_struct* vma, int first, int count, mm_struct* detached,
                   mm_struct* undo);
