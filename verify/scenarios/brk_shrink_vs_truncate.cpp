// brk() shrinking the heap to nothing (do_brk_munmap -> do_vmi_align_munmap -> unmap_region)
// while the binary below it is truncated (a rebuilt binary overwritten in place). Addresses
// from tests/data/sleep.maps: the heap shares the PMD and PUD tables with the sleep binary,
// and next (LC_CTYPE) is in another 512 GiB region, so the ceiling protects neither: only
// free_pmd_range's and free_pud_range's "start < floor" tests keep the binary's tables.
#include "verify/scenarios/teardown_world.hpp"

struct brk_shrink_vs_truncate : munmap_against<brk_shrink_vs_truncate> {
  static constexpr layout<7, 2> kLayout = {{
      {0x5583e180f000, 0x5583e1811000, 1},  // sleep r--p
      {0x5583e1811000, 0x5583e1816000, 1},  // sleep r-xp
      {0x5583e1816000, 0x5583e1818000, 1},  // sleep r--p
      {0x5583e1818000, 0x5583e1819000, 1},  // sleep r--p (relro)
      {0x5583e1819000, 0x5583e181a000, 1},  // sleep rw-p: prev, its end is the floor
      {0x5583e3265000, 0x5583e3286000, 0},  // [heap]
      {0x7fbf22414000, 0x7fbf2246b000, 2},  // LC_CTYPE: next, its start is the ceiling
  }, {{"/usr/bin/sleep", 0}, {"LC_CTYPE", 1}}};
  static constexpr int kFirst = 5, kCount = 1;  // the heap

  static void concurrently(teardown_world<rwsem_abstract>* w) { unmap_mapping_range(&w->mappings[0]); }
};

VMAVERIFY_TEARDOWN_SCENARIO(brk_shrink_vs_truncate, "brk_shrink_vs_truncate",
                            "abstract rw_semaphore: brk shrinking the heap away (sleep.maps addresses; next is in "
                            "another 512 GiB region) against truncation of the binary that shares its PMD and PUD "
                            "tables",
                            "full");
