// free_pgtables (mm/memory.c): hide each VMA from the reverse maps, then free the page tables
// of gathered neighbours in one free_pgd_range call. Generic like model/vma_batch.hpp; the
// object family also provides mas_find, xa_is_zero, vma_start_write, unlink_anon_vmas,
// is_vm_hugetlb_page, free_pgd_range and hugetlb_free_pgd_range.
#pragma once
#include "model/pgtable.hpp"
#include "model/call_chain.hpp"
#include "model/vma_batch.hpp"

// Which teardown runs: the patch's (batched) or the code before it (one unlink_file_vma per VMA).
enum class teardown_variant { batched, unbatched };

// The floor a group's free_pgd_range gets: the caller's, the end of the last VMA that stays.
inline unsigned long group_floor(unsigned long group_start, unsigned long floor) {
  return mutant(Mutant::free_pgtables_floor_group_start) ? group_start : floor;
}
// The ceiling a group's free_pgd_range gets: the next VMA's start, which must stay mapped.
template <class VMA>
unsigned long group_ceiling(VMA* next, unsigned long ceiling) {
  if (mutant(Mutant::free_pgtables_ceiling_caller)) return ceiling;
  return next ? next->vm_start : ceiling;
}

// free_pgtables (mm/memory.c, v6.11): the seed's version, with the hugetlb branch unbatched.
// Gathering a hugetlb neighbour into the normal path (v6.17 does) is no bug on x86-64, where
// hugetlb_free_pgd_range is free_pgd_range, so the model has no mutant for it.
template <class MAS, class VMA>
void free_pgtables(MAS* mas, VMA* vma, unsigned long floor, unsigned long ceiling, bool mm_wr_locked,
                   teardown_variant variant = teardown_variant::batched) {
  KERNEL_FRAME();
  unlink_vma_file_batch<VMA> vb;
  const bool batched = variant == teardown_variant::batched;
  do {
    unsigned long addr = vma->vm_start;
    // USER_PGTABLES_CEILING may be 0: ceiling - 1 underflows to the top, as in the kernel.
    VMA* next = mas_find(mas, ceiling - 1);
    if (xa_is_zero(next) && !mutant(Mutant::xa_is_zero_ignored)) next = nullptr;
    // Hide vma from rmap and truncate_pagecache before freeing pgtables.
    if (mm_wr_locked) vma_start_write(vma);
    unlink_anon_vmas(vma);
    if (!batched) unlink_file_vma(vma);  // before the patch, first VMA of a group
    if (is_vm_hugetlb_page(vma)) {
      if (batched) unlink_file_vma(vma);
      hugetlb_free_pgd_range(mas, addr, vma->vm_end, floor, group_ceiling(next, ceiling));
    } else {
      if (batched) {
        unlink_file_vma_batch_init(&vb);
        unlink_file_vma_batch_add(&vb, vma);
      }
      // Optimization: gather nearby vmas into one call down.
      while (next && next->vm_start <= vma->vm_end + PMD_SIZE && !is_vm_hugetlb_page(next)) {
        vma = next;
        next = mas_find(mas, ceiling - 1);
        if (xa_is_zero(next) && !mutant(Mutant::xa_is_zero_ignored)) next = nullptr;
        if (mm_wr_locked) vma_start_write(vma);
        unlink_anon_vmas(vma);
        if (batched)
          unlink_file_vma_batch_add(&vb, vma);
        else
          unlink_file_vma(vma);
      }
      if (!batched) {
        free_pgd_range(mas, addr, vma->vm_end, group_floor(addr, floor), group_ceiling(next, ceiling));
      } else if (mutant(Mutant::final_after_free_pgd_range)) {
        free_pgd_range(mas, addr, vma->vm_end, group_floor(addr, floor), group_ceiling(next, ceiling));
        unlink_file_vma_batch_final(&vb);
      } else {
        unlink_file_vma_batch_final(&vb);
        free_pgd_range(mas, addr, vma->vm_end, group_floor(addr, floor), group_ceiling(next, ceiling));
      }
    }
    vma = next;
  } while (vma);
}
