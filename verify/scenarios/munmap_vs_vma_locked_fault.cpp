// munmap of a 2 MiB file mapping while another thread of the process faults inside it (a late
// access to a buffer it is unmapping): the fault takes only the VMA's own lock
// (lock_vma_under_rcu), not mmap_lock, so what keeps it out of the page tables munmap frees is
// vms_gather_munmap_vmas' vma_start_write, which waits for it to finish and keeps later faults
// out until the VMA is detached and out of the tree; those fall back to mmap_lock, find no VMA
// and fail. Constructed layout: the mapping alone in its PTE table, between an anonymous prev
// and next. Searched reduced: the fault's lockless steps interleave with every step of munmap
// (plain full search: 25.7 million iterations, 211 s); the tree it walks without a lock is an
// instrumented word (mm_struct::mt_seq), as the reduction requires.
#include "model/fault.hpp"
#include "model/mmap_lock.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct munmap_vs_vma_locked_fault : scenario_base<munmap_vs_vma_locked_fault, 2> {
  static constexpr layout<3, 1> kLayout = {{
      {0x7f4c00000000, 0x7f4c00021000, 0},  // anonymous: prev
      {0x7f4c00200000, 0x7f4c00400000, 1},  // the file mapping unmapped, 2 MiB
      {0x7f4c00600000, 0x7f4c00621000, 0},  // anonymous: next
  }, {{"buffer file", 0}}};
  static constexpr int kFirst = 1, kCount = 1;
  static constexpr unsigned long kFault = 0x7f4c00305000;  // a page of the mapping

  teardown_world<rwsem_abstract> w;
  mmap_lock_t mmap_lock{"unmapping process"};
  vma_lock_t buffer_lock{"the file mapping"};
  mm_struct* mm;
  mm_struct detached{"munmap's detached VMAs"};
  bool faulted = false;

  munmap_vs_vma_locked_fault() {
    w.set_files(kLayout.files, 1);
    mm = w.add_mm("unmapping process", kLayout.vmas, 3);
    mm->mmap_lock = &mmap_lock;
    mm->vmas[kFirst]->vm_lock = &buffer_lock;
  }

  void thread(unsigned i) {
    if (i == 0)
      do_vmi_align_munmap(mm, kFirst, kCount, &detached);
    else
      faulted = do_user_addr_fault(mm, kFault);
  }

  void after() {
    w.check_removed(&detached, mm);
    w.check_removed(mm, mm, false);
    w.check_gathered_tables_freed(mm);
    w.check_no_orphan_tables(mm);
    w.check_trees_after(1u << detached.vmas[0]->id, 0);
    w.report_write_locks(0);
    // Which way the fault went, each a stat that stays 1 once some run reached it.
    exploration::stat(faulted ? "reached_fault_before_munmap" : "reached_fault_after_munmap_failed", 1);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_vs_vma_locked_fault, "munmap_vs_vma_locked_fault",
                            "abstract rw_semaphore: munmap of a 2 MiB file mapping against a fault inside it "
                            "under the per-VMA lock (lock_vma_under_rcu; vma_start_write in "
                            "vms_gather_munmap_vmas excludes it)",
                            "full+reduce");
