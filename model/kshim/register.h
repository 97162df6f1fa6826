// The end of the checker's kernel translation unit: the kernel's free_pgtables, called as the
// model calls its own (model/mm.hpp teardown_free_pgtables), with a gather over the walk.
#pragma once

inline void kshim_free_pgtables(ma_state* mas, vm_area_struct* vma, unsigned long floor, unsigned long ceiling,
                                bool mm_wr_locked) {
  // A failed check ends an iteration wherever it is, even inside process: start clean.
  kshim_in_process() = 0;
  kshim_init_in_process() = false;
  struct mmu_gather tlb{mas, mas->mm};
  kbody_free_pgtables(&tlb, mas, vma, floor, ceiling, mm_wr_locked);
}

struct kshim_registrar {
  explicit kshim_registrar(const char* files) {
    g_kernel_free_pgtables_linked = &kshim_free_pgtables;
    g_kernel_source_files = files;
  }
};
#define KSHIM_REGISTER(files) static kshim_registrar kshim_registered(files)
