// free_pgtables (mm/memory.c): hide each VMA from the reverse maps, then free the page tables
// of gathered neighbours in one free_pgd_range call. Generic like model/vma_batch.hpp; the
// object family also provides mas_find, vma_start_write, unlink_anon_vmas, is_vm_hugetlb_page,
// free_pgd_range and hugetlb_free_pgd_range.
#pragma once
#include "model/vma_batch.hpp"

constexpr unsigned long PMD_SIZE = 1UL << 21;  // x86-64

// Which teardown runs: the patch's (batched) or the code before it (one unlink_file_vma per VMA).
enum class teardown_variant { batched, unbatched };

// free_pgtables (mm/memory.c, v6.11): the seed's version, with the hugetlb branch unbatched.
template <class MAS, class VMA>
void free_pgtables(MAS* mas, VMA* vma, unsigned long floor, unsigned long ceiling, bool mm_wr_locked,
                   teardown_variant variant = teardown_variant::batched) {
  unlink_vma_file_batch<VMA> vb;
  const bool batched = variant == teardown_variant::batched;
  do {
    unsigned long addr = vma->vm_start;
    // (The kernel also turns an xa_is_zero marker, left by a failed dup_mmap, into NULL here.)
    VMA* next = mas_find(mas, ceiling - 1);
    // Hide vma from rmap and truncate_pagecache before freeing pgtables.
    if (mm_wr_locked) vma_start_write(vma);
    unlink_anon_vmas(vma);
    if (!batched) unlink_file_vma(vma);  // before the patch, first VMA of a group
    if (is_vm_hugetlb_page(vma)) {
      if (batched) unlink_file_vma(vma);
      hugetlb_free_pgd_range(mas, addr, vma->vm_end, floor, next ? next->vm_start : ceiling);
    } else {
      if (batched) {
        unlink_file_vma_batch_init(&vb);
        unlink_file_vma_batch_add(&vb, vma);
      }
      // Optimization: gather nearby vmas into one call down.
      while (next && next->vm_start <= vma->vm_end + PMD_SIZE && !is_vm_hugetlb_page(next)) {
        vma = next;
        next = mas_find(mas, ceiling - 1);
        if (mm_wr_locked) vma_start_write(vma);
        unlink_anon_vmas(vma);
        if (batched)
          unlink_file_vma_batch_add(&vb, vma);
        else
          unlink_file_vma(vma);
      }
      if (!batched) {
        free_pgd_range(mas, addr, vma->vm_end, floor, next ? next->vm_start : ceiling);
      } else if (mutant(Mutant::final_after_free_pgd_range)) {
        free_pgd_range(mas, addr, vma->vm_end, floor, next ? next->vm_start : ceiling);
        unlink_file_vma_batch_final(&vb);
      } else {
        unlink_file_vma_batch_final(&vb);
        free_pgd_range(mas, addr, vma->vm_end, floor, next ? next->vm_start : ceiling);
      }
    }
    vma = next;
  } while (vma);
}
