// free_pgtables compiled from a kernel tree (vmaverify kernel, model/kshim/register.h): linked
// is set when the binary holds that code; g_kernel_free_pgtables is it while the kernel's code
// is the one under test (the batched teardown threads then run it: model/mm.cpp
// teardown_free_pgtables), else null. Without Relacy: the command line includes it.
#pragma once

struct ma_state;
struct vm_area_struct;
using free_pgtables_fn = void (*)(ma_state* mas, vm_area_struct* vma, unsigned long floor, unsigned long ceiling,
                                  bool mm_wr_locked);
extern free_pgtables_fn g_kernel_free_pgtables_linked, g_kernel_free_pgtables;
extern const char* g_kernel_source_files;  // the tree's files it came from, e.g. "mm/memory.c, mm/vma.c, mm/vma.h"
