// Batched unlink of file VMAs from their mapping's i_mmap tree: mm/vma.c (v6.12; in v6.11 it
// is mm/mmap.c, commit 3577dbb19241), plus the unbatched unlink_file_vma it replaces.
// Generic over the kernel objects so that the same code runs under the model checker
// (model/mm.hpp) and plainly over real process layouts (model/mm_plain.hpp). Each object
// family provides, found by argument-dependent lookup: i_mmap_lock_write/_read and unlocks,
// __remove_shared_vm_struct, VM_WARN_ON_ONCE_mapping and unlink_file_vma_batch_event.
#pragma once
#include "model/mutants.hpp"
#include "model/call_chain.hpp"

enum batch_event { BATCH_INIT, BATCH_ADD, BATCH_PROCESS, BATCH_FINAL };

// struct unlink_vma_file_batch (mm/vma.h; mm/internal.h in v6.11).
template <class VMA>
struct unlink_vma_file_batch {
  static constexpr int ARRAY_SIZE = 8;  // ARRAY_SIZE(vb->vmas)
  int count;
  VMA* vmas[ARRAY_SIZE];
};

// unlink_file_vma_batch_init (mm/vma.c)
template <class VMA>
void unlink_file_vma_batch_init(unlink_vma_file_batch<VMA>* vb) {
  KERNEL_FRAME();
  vb->count = 0;
  unlink_file_vma_batch_event(vb, BATCH_INIT);
}

// unlink_file_vma_batch_process (mm/vma.c)
template <class VMA>
void unlink_file_vma_batch_process(unlink_vma_file_batch<VMA>* vb) {
  KERNEL_FRAME();
  auto* mapping = vb->vmas[0]->vm_file->f_mapping;
  if (mutant(Mutant::batch_process_with_read_lock))
    i_mmap_lock_read(mapping);
  else if (!mutant(Mutant::batch_process_without_lock))
    i_mmap_lock_write(mapping);
  for (int i = 0; i < vb->count; i++) {
    VM_WARN_ON_ONCE_mapping(vb->vmas[i]->vm_file->f_mapping != mapping, vb->vmas[i]);
    __remove_shared_vm_struct(vb->vmas[i], mapping);
  }
  if (mutant(Mutant::batch_process_with_read_lock))
    i_mmap_unlock_read(mapping);
  else if (!mutant(Mutant::batch_process_without_lock))
    i_mmap_unlock_write(mapping);
  unlink_file_vma_batch_event(vb, BATCH_PROCESS);
  unlink_file_vma_batch_init(vb);
}

// unlink_file_vma_batch_add (mm/vma.c)
template <class VMA>
void unlink_file_vma_batch_add(unlink_vma_file_batch<VMA>* vb, VMA* vma) {
  KERNEL_FRAME();
  if (vma->vm_file == nullptr && !mutant(Mutant::batch_anon_vma_added)) return;
  bool other_file = vb->count > 0 && (mutant(Mutant::batch_flush_compares_mapping)
                                          ? vb->vmas[0]->vm_file->f_mapping != vma->vm_file->f_mapping
                                          : vb->vmas[0]->vm_file != vma->vm_file);
  if (mutant(Mutant::batch_no_flush_on_other_file)) other_file = false;
  bool full = vb->count == unlink_vma_file_batch<VMA>::ARRAY_SIZE && !mutant(Mutant::batch_no_flush_when_full);
  if (other_file || full) unlink_file_vma_batch_process(vb);
  if (vb->count == unlink_vma_file_batch<VMA>::ARRAY_SIZE) {
    // Only a mutant gets here. The kernel would store vmas[8], past the array: the model
    // keeps the overflow in count alone (the write would be undefined behaviour here too)
    // and lets the batch event report count > 8.
    vb->count++;
    unlink_file_vma_batch_event(vb, BATCH_ADD);
    return;
  }
  vb->vmas[vb->count] = vma;
  vb->count++;
  unlink_file_vma_batch_event(vb, BATCH_ADD);
}

// unlink_file_vma_batch_final (mm/vma.c)
template <class VMA>
void unlink_file_vma_batch_final(unlink_vma_file_batch<VMA>* vb) {
  KERNEL_FRAME();
  if (vb->count > 0 && !mutant(Mutant::batch_final_forgotten)) unlink_file_vma_batch_process(vb);
  unlink_file_vma_batch_event(vb, BATCH_FINAL);
}

// unlink_file_vma (mm/vma.c): the unbatched removal, one lock round trip per VMA.
template <class VMA>
void unlink_file_vma(VMA* vma) {
  KERNEL_FRAME();
  auto* file = vma->vm_file;
  if (file) {
    auto* mapping = file->f_mapping;
    i_mmap_lock_write(mapping);
    __remove_shared_vm_struct(vma, mapping);
    i_mmap_unlock_write(mapping);
  }
}
