// munmap of a 2 MiB file mapping right below the main thread's stack, while another thread of
// the process faults one page below the stack (deep recursion), so the stack must grow into
// the range munmap is unmapping. munmap computes its ceiling (next's start, the stack's) under
// mmap_lock for write, then downgrades it to read and frees the PTE table that maps the range;
// the stack may take the range only with mmap_lock held for write (v6.5 on), so only before
// munmap took it (the fault then lands in the file mapping) or after munmap let it go (the
// fault allocates the PTE table again). Constructed: the mapping and the stack are PMD-aligned
// so that the freed PTE table is the one the stack grows into; the heap is far below, beyond
// the stack guard gap.
#include "model/fault.hpp"
#include "model/mmap_lock.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct munmap_vs_stack_fault : scenario_base<munmap_vs_stack_fault, 2> {
  static constexpr layout<3, 1> kLayout = {{
      {0x7ffcfe000000, 0x7ffcfe021000, 0},  // [heap]-like anonymous VMA: prev
      {0x7ffd00000000, 0x7ffd00200000, 1},  // the file mapping unmapped, 2 MiB
      {0x7ffd00200000, 0x7ffd00221000, 0},  // [stack], VM_GROWSDOWN: next
  }, {{"data file", 0}}};
  static constexpr int kFirst = 1, kCount = 1;
  static constexpr unsigned long kFault = 0x7ffd001ff000;  // the page below the stack

  teardown_world<rwsem_abstract> w;
  mmap_lock_t mmap_lock{"unmapping process"};
  mm_struct* mm;
  mm_struct detached{"munmap's detached VMAs"};
  vm_area_struct* stack;

  munmap_vs_stack_fault() {
    w.set_files(kLayout.files, 1);
    mm = w.add_mm("unmapping process", kLayout.vmas, 3);
    mm->mmap_lock = &mmap_lock;
    stack = mm->vmas[2];
    stack->growsdown = true;
    mm->pgtables.reserve(kFault, kFault + PAGE_SIZE);
  }

  void thread(unsigned i) {
    if (i == 0)
      do_vmi_align_munmap(mm, kFirst, kCount, &detached);
    else
      do_user_addr_fault(mm, kFault);
  }

  void after() {
    w.check_removed(&detached, mm);
    w.check_removed(mm, mm, false);  // the heap and the stack, grown or not: their tables kept
    w.check_gathered_tables_freed(mm);
    w.check_trees_after(1u << detached.vmas[0]->id, 0);
    w.report_write_locks(0);
    // Which way the fault went, each a stat that stays 1 once some run reached it.
    if (stack->vm_start == kFault && mm->pgtables.find(PTE_TABLE, kFault)->generation > 0)
      exploration::stat("reached_stack_grew_into_a_table_allocated_again", 1);
    if (stack->vm_start != kFault) exploration::stat("reached_fault_in_the_mapping_before_munmap", 1);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_vs_stack_fault, "munmap_vs_stack_fault",
                            "abstract rw_semaphore: munmap of a file mapping right below the stack against a "
                            "fault that grows the stack into it (mmap_lock: munmap downgrades, stack growth "
                            "takes it for write)",
                            "full");
