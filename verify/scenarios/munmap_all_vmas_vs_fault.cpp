// munmap of every VMA a process has (two windows of one file, across a PMD boundary), while
// another thread of the process faults inside the second. With no VMA below and none above,
// vms_gather_munmap_vmas gives FIRST_USER_ADDRESS as floor and USER_PGTABLES_CEILING (0, the
// top) as ceiling, so free_pgd_range frees every PTE, PMD and PUD table: the fault either ran
// before munmap took mmap_lock for write (its PTE goes with the tables) or finds no VMA at all
// once munmap let go, under the downgraded lock or after (SIGSEGV). Constructed: a process that
// unmapped everything else (a sandbox); exit_mmap frees with the same floor and ceiling.
#include "model/fault.hpp"
#include "model/mmap_lock.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct munmap_all_vmas_vs_fault : scenario_base<munmap_all_vmas_vs_fault, 2> {
  static constexpr layout<2, 1> kLayout = {{
      {0x7f6100100000, 0x7f6100200000, 1},  // the file's first 1 MiB
      {0x7f6100200000, 0x7f6100300000, 1},  // its next 1 MiB, in the next PTE table
  }, {{"data file", 0}}};
  static constexpr int kFirst = 0, kCount = 2;
  static constexpr unsigned long kFault = 0x7f6100281000;  // a page of the second window

  teardown_world<rwsem_abstract> w;
  mmap_lock_t mmap_lock{"unmapping process"};
  mm_struct* mm;
  mm_struct detached{"munmap's detached VMAs"};
  bool faulted = false;

  munmap_all_vmas_vs_fault() {
    w.set_files(kLayout.files, 1);
    mm = w.add_mm("unmapping process", kLayout.vmas, 2);
    mm->mmap_lock = &mmap_lock;
  }

  void thread(unsigned i) {
    if (i == 0)
      do_vmi_align_munmap(mm, kFirst, kCount, &detached);
    else
      faulted = do_user_addr_fault(mm, kFault);
  }

  void after() {
    w.check_removed(&detached, mm);
    w.check_gathered_tables_freed(mm);
    w.check_no_orphan_tables(mm);  // no VMA is left, so no table may be either
    w.check_trees_after((1u << detached.vmas[0]->id) | (1u << detached.vmas[1]->id), 0);
    w.report_write_locks(0);
    // Which way the fault went, each a stat that stays 1 once some run reached it.
    exploration::stat(faulted ? "reached_fault_before_munmap" : "reached_fault_found_no_vma", 1);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_all_vmas_vs_fault, "munmap_all_vmas_vs_fault",
                            "abstract rw_semaphore: munmap of every VMA of a process (no prev, no next: floor "
                            "FIRST_USER_ADDRESS, ceiling the top) against a fault inside them under mmap_lock",
                            "full");
