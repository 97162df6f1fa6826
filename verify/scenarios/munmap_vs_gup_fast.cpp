// munmap of a 4 MiB file mapping alone in its 512 GiB region while another thread of the same
// process pins a page of it with GUP-fast (an O_DIRECT read into the buffer, say). munmap frees
// the mapping's PTE tables, its PMD table and its PUD table; GUP-fast walks them with no lock
// at all, only interrupts off. What keeps it safe: free_pgd_range only clears the entries and
// queues the pages on the mmu_gather, and tlb_finish_mmu frees them after a grace period, which
// waits for GUP-fast's interrupts-off section. Addresses: a PIE heap, an mmap region, the stack.
#include "verify/scenarios/teardown_world.hpp"

struct munmap_vs_gup_fast : munmap_against<munmap_vs_gup_fast> {
  static constexpr layout<3, 1> kLayout = {{
      {0x55d4c0000000, 0x55d4c0021000, 0},  // [heap]: prev, in another 512 GiB region
      {0x7f3a00000000, 0x7f3a00400000, 1},  // the buffer: a 4 MiB shared file mapping
      {0x7ffd00000000, 0x7ffd00021000, 0},  // [stack]: next, in another 512 GiB region
  }, {{"buffer file", 0}}};
  static constexpr int kFirst = 1, kCount = 1;
  static constexpr unsigned long kPinned = 0x7f3a00201000;  // in the second PTE table

  munmap_vs_gup_fast() { w.rcu.readers = 1; }

  void after() {
    munmap_against::after();
    w.report_lockless_window();
  }

  static void concurrently(teardown_world<rwsem_abstract>* w) {
    LOG_TASK("GUP-fast (gup_fast, another thread of the process)");
    gup_fast(&w->mms[0].pgtables, kPinned);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_vs_gup_fast, "munmap_vs_gup_fast",
                            "abstract rw_semaphore: munmap of a 4 MiB file mapping alone in its 512 GiB region "
                            "(its PTE, PMD and PUD tables freed) against GUP-fast's lockless walk of them from "
                            "another thread",
                            "full");
