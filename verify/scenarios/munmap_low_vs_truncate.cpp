// munmap of a page mapped at mmap_min_addr (64 KiB) whose next VMA starts below 2 MiB, so that
// unmap_region's ceiling (next->vm_start) rounds down to 0 at the PMD level and free_pgd_range
// must return at once (`if (!ceiling) return`): the PTE table is next's too. The file of both
// is truncated meanwhile, which walks next through that table.
#include "verify/scenarios/teardown_world.hpp"

struct munmap_low_vs_truncate : munmap_against<munmap_low_vs_truncate> {
  static constexpr layout<2, 1> kLayout = {{
      {0x00010000, 0x00011000, 1},  // low.bin r--p at mmap_min_addr: unmapped
      {0x00100000, 0x00101000, 1},  // low.bin rw-p at 1 MiB: next, its start is the ceiling
  }, {{"low.bin", 0}}};
  static constexpr int kFirst = 0, kCount = 1;

  static void concurrently(teardown_world<rwsem_abstract>* w) { unmap_mapping_range(&w->mappings[0]); }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_low_vs_truncate, "munmap_low_vs_truncate",
                            "abstract rw_semaphore: munmap of a page at 64 KiB whose next VMA starts below 2 MiB "
                            "(the ceiling rounds down to 0), against truncation of their file",
                            "full");
