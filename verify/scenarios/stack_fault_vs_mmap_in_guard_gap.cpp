// mmap MAP_FIXED of a file into the gap right below the main thread's stack, while another
// thread of the process faults one page below the stack. Whichever takes mmap_lock for write
// first decides: the stack grows by that page and the mapping goes below it (MAP_FIXED may map
// inside the guard gap), or the mapping comes first and the fault fails (SIGSEGV), because
// growing the stack would leave it one page less than the stack guard gap above the new mapping
// (expand_downwards' -ENOMEM, after the fault dropped mmap_lock for read and took it for write).
// The mapping lands in a gap, so its __mmap_region gathers and clears nothing; its driver fills
// the PTE table the stack would grow into. Constructed: the heap is far below, beyond the gap.
#include "model/actors.hpp"
#include "model/fault.hpp"
#include "model/mmap_lock.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct stack_fault_vs_mmap_in_guard_gap : scenario_base<stack_fault_vs_mmap_in_guard_gap, 2> {
  static constexpr layout<2, 1> kLayout = {{
      {0x7ffcfe000000, 0x7ffcfe021000, 0},  // [heap]-like anonymous VMA, far below
      {0x7ffd00200000, 0x7ffd00221000, 0},  // [stack], VM_GROWSDOWN
  }, {{"data file", 0}}};
  static constexpr unsigned long kFault = 0x7ffd001ff000;  // the page below the stack
  // MAP_FIXED into the gap: 1 MiB of the file ending exactly one guard gap below the stack's
  // start, so that growing the stack by the faulting page would leave one page too little.
  static constexpr layout_vma kNew = {0x7ffd00000000, 0x7ffd00100000, 1};
  static_assert(kNew.end == kLayout.vmas[1].start - STACK_GUARD_GAP, "the new VMA ends one guard gap below");
  static constexpr int kGap = 1;  // the new VMA goes between the heap and the stack

  teardown_world<rwsem_abstract> w;
  mmap_lock_t mmap_lock{"the process"};
  mm_struct* mm;
  mm_struct detached{"nothing: MAP_FIXED into a gap"};
  mm_struct undo{"unused: the driver's mmap succeeds"};
  vm_area_struct* stack;
  vm_area_struct* new_vma;
  bool fault_ok = false;

  stack_fault_vs_mmap_in_guard_gap() {
    w.set_files(kLayout.files, 1);
    mm = w.add_mm("the process", kLayout.vmas, 2);
    mm->mmap_lock = &mmap_lock;
    stack = mm->vmas[1];
    stack->growsdown = true;
    new_vma = w.new_vma(kNew, mm, 0, false);  // its tables: still to be allocated
    mm->pgtables.reserve(kFault, kFault + PAGE_SIZE);
  }

  void thread(unsigned i) {
    if (i == 0)
      vm_mmap_pgoff(mm, new_vma, kGap, 0, &detached, &undo);
    else
      fault_ok = do_user_addr_fault(mm, kFault);
  }

  void after() {
    // The fault succeeds exactly when the stack grew, that is when it took mmap_lock first.
    const bool grew = stack->vm_start == kFault;
    VM_CHECK(fault_ok == grew, "guard gap", "the fault %s, but the stack starts at %#lx",
             fault_ok ? "succeeded" : "failed", stack->vm_start);
    VM_CHECK(mm->nr == 3 && mm->vmas[kGap] == new_vma && new_vma->vm_end <= stack->vm_start, "exactly once",
             "the new mapping is not in the tree below the stack");
    w.check_removed(mm, mm, false);  // nothing was unmapped: every VMA keeps its tables
    w.check_gathered_tables_freed(mm);
    w.check_trees_after(0, 1u << new_vma->id);
    w.check_no_orphan_tables(mm);
    // Which way it went, each a stat that stays 1 once some run reached it.
    if (grew) exploration::stat("reached_stack_grew_then_mapped_below", 1);
    if (!fault_ok) exploration::stat("reached_fault_refused_by_guard_gap", 1);
  }
};

VMAVERIFY_SCENARIO(stack_fault_vs_mmap_in_guard_gap, "stack_fault_vs_mmap_in_guard_gap",
                   "abstract rw_semaphore: mmap MAP_FIXED into the gap below the stack against a fault that "
                   "would grow the stack into it (the stack guard gap, tested under mmap_lock for write)",
                   "full");
