// munmap of libc and its bss when the next VMA is the stack, gigabytes above: the ceiling no
// longer protects the PMD and PUD tables that libc shares with the VMAs below it, so only the
// floor (prev->vm_end) and free_pmd_range's and free_pud_range's "start < floor" tests keep
// them. Addresses from tests/data/sleep.maps; the locale files and ld.so between libc's bss and
// the stack are left out so that the stack is next.
#include "verify/scenarios/teardown_world.hpp"

struct munmap_far_next_vs_truncate : munmap_against<munmap_far_next_vs_truncate> {
  static constexpr layout<9, 2> kLayout = {{
      {0x7fbf22471000, 0x7fbf22472000, 2},  // locale-archive r--p (LC_NAME)
      {0x7fbf22472000, 0x7fbf22475000, 0},  // anonymous rw-p: prev, its end is the floor
      {0x7fbf22475000, 0x7fbf2249b000, 1},  // libc r--p
      {0x7fbf2249b000, 0x7fbf225f1000, 1},  // libc r-xp
      {0x7fbf225f1000, 0x7fbf22644000, 1},  // libc r--p, across the PMD boundary
      {0x7fbf22644000, 0x7fbf22648000, 1},  // libc r--p (relro)
      {0x7fbf22648000, 0x7fbf2264a000, 1},  // libc rw-p
      {0x7fbf2264a000, 0x7fbf22657000, 0},  // bss, anonymous
      {0x7ffc54978000, 0x7ffc54999000, 0},  // [stack]: next, its start is the ceiling
  }, {{"libc.so.6", 0}, {"locale-archive", 1}}};
  static constexpr int kFirst = 2, kCount = 6;  // libc and its bss

  static void concurrently(teardown_world<rwsem_abstract>* w) { unmap_mapping_range(&w->mappings[1]); }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_far_next_vs_truncate, "munmap_far_next_vs_truncate",
                            "abstract rw_semaphore: munmap of libc and its bss (sleep.maps addresses) with the "
                            "stack as next, so that only the floor keeps the PMD and PUD tables shared with the "
                            "VMA below, against truncation of that VMA's file",
                            "full");
