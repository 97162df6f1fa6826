// The kernel shim: what the code that verify/kernel/kernel_extract.py takes from a kernel tree needs
// from the kernel's headers, mapped to the model's objects (model/mm.hpp). Compiled only into
// the checker that `vmaverify kernel` builds; README ("vmaverify kernel") lists each mapping.
// Types: struct vm_area_struct, file, address_space and ma_state are the model's own, whose
// fields the kernel code reads (vm_start, vm_end, vm_file, f_mapping, i_mmap); the functions
// the kernel code calls are the model's (mas_find, xa_is_zero, vma_start_write,
// unlink_anon_vmas, is_vm_hugetlb_page, vma_is_shared_maywrite, PMD_SIZE) or, where the call
// touches shared state, a wrapper in model/kshim/call_sites.h that cites the kernel's line.
#pragma once
#include "model/call_chain.hpp"
#include "model/mm.hpp"

// The model's batch, which the ghost hook and the Z3 specs read (model/vma_batch.hpp).
using model_batch = unlink_vma_file_batch<vm_area_struct>;

// The kernel's struct unlink_vma_file_batch is compiled under its own name beside the model's
// template of the same name.
#define unlink_vma_file_batch kernel_unlink_vma_file_batch
// The one addition to the kernel's text (at the end of the struct, on its closing line): room
// past vmas[], so that a store past the array (a batch not flushed when full) lands where the
// shim reads it and reports count > 8, instead of on the stack frame. The store is undefined
// behaviour in C; the kernel TU is built with the kernel's own -fno-strict-aliasing.
#define KSHIM_BATCH_OVERFLOW_ZONE struct vm_area_struct* kshim_overflow_zone[8];

// include/linux/compiler.h
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
// include/linux/array_size.h, without its __must_be_array check (C++ has no __builtin_types_compatible_p).
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))

// struct mmu_gather (include/asm-generic/tlb.h): the gather carries the maple-tree walk, which
// knows the mm; the table pages it queues are the calling task's gather (model/mmu_gather.hpp),
// started and finished by the model's callers of free_pgtables.
struct mmu_gather {
  ma_state* mas;
  mm_struct* mm;  // tlb->mm
};
#include "model/kshim/pgtable.h"
#define tlb_change_page_size(tlb, size) ((void)(tlb), (void)(size))
#define mm_dec_nr_ptes(mm) ((void)(mm))
#define mm_dec_nr_pmds(mm) ((void)(mm))
#define mm_dec_nr_puds(mm) ((void)(mm))
