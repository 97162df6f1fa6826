// userfaultfd's UFFDIO_COPY (mm/userfaultfd.c, v6.12) of one page into a private mapping of a
// shmem file, reduced to what it does to the VMA and its page tables: mfill_atomic's
// anon_vma_prepare, the PTE table (allocated where the pmd is none), then
// mfill_atomic_install_pte: under pte_offset_map_lock, a new anonymous page in the PTE if it is
// none. It holds neither mmap_lock for write nor i_mmap_rwsem, so only the page-table locks order
// it against khugepaged's retract_page_tables.
//
// Simplified: a private destination only (a shared one gets a shmem page, not an anonymous
// one); uffd_mfill_lock (the VMA's per-VMA lock, or mmap_lock for read) is left out, as
// nothing else in the worlds it runs in takes them; mm_alloc_pmd finds the PUD and PMD tables
// there (set-up); the page copied and its rmap are the ghost page the PTE maps.
#pragma once
#include "model/mm.hpp"

// anon_vma_prepare (mm/rmap.c): under mm->page_table_lock, vma->anon_vma set if it is not. The
// VMA has an instrumented anon_vma (vm_area_struct::anon_vma_live).
void anon_vma_prepare(vm_area_struct* vma);
// mfill_atomic for one page at dst_addr of dst_vma: 0, or -EAGAIN when the PTE table went away
// before pte_offset_map_lock (the pmd none or changed), -EEXIST when the PTE is not none.
int mfill_atomic_copy(vm_area_struct* dst_vma, unsigned long dst_addr);
