// The tasks that run concurrently with page-table teardown and go through i_mmap: rmap walkers,
// truncation, khugepaged, and mmap / munmap of another VMA. Each is the kernel function named,
// reduced to its i_mmap and page-table steps.
#pragma once
#include "model/mm.hpp"

// Every page offset of the file: a walk over the whole of i_mmap (truncation of the file).
constexpr unsigned long ALL_PGOFFS = ~0UL;

// rmap_walk_file (mm/rmap.c) for the folio at file page pgoff: under i_mmap_lock_read, every
// VMA of i_mmap that maps pgoff, page_vma_mapped_walk at its address. With try_lock (reclaim's
// folio_referenced / try_to_unmap through shrink_folio_list) it gives up on contention.
void rmap_walk_file(address_space* mapping, unsigned long pgoff, bool try_lock = false);
// unmap_mapping_range (mm/memory.c) over the whole file: under i_mmap_lock_read,
// zap_page_range_single on every VMA of i_mmap (truncation, hole punching).
void unmap_mapping_range(address_space* mapping);
// retract_page_tables (mm/khugepaged.c) after a collapse at pgoff: under i_mmap_lock_read, free
// the PTE table of every VMA that maps the whole aligned 2 MiB around pgoff (pte_free_defer).
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
