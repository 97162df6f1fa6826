// munmap of a library (dlclose) whose first and last page tables are shared with its neighbours,
// while the neighbours' file is truncated. Addresses from tests/data/sleep.maps: libc spans
// 0x7fbf22475000-0x7fbf2264a000 across the PMD boundary at 0x7fbf22600000; the VMA below it
// (LC_NAME) shares the PTE table at 0x7fbf22400000 and LC_ADDRESS above it the one at
// 0x7fbf22600000. The two locale VMAs are modelled as two windows of one locale archive, so
// that one truncation reaches both neighbours. unmap_region must pass prev->vm_end and
// next->vm_start as floor and ceiling, so that free_pgd_range frees neither shared table.
#include "verify/scenarios/teardown_world.hpp"

struct munmap_vs_truncate : munmap_against<munmap_vs_truncate> {
  static constexpr layout<8, 2> kLayout = {{
      {0x7fbf22471000, 0x7fbf22472000, 2},  // locale-archive r--p (LC_NAME): prev's file
      {0x7fbf22472000, 0x7fbf22475000, 0},  // anonymous rw-p: prev, its end is the floor
      {0x7fbf22475000, 0x7fbf2249b000, 1},  // libc r--p
      {0x7fbf2249b000, 0x7fbf225f1000, 1},  // libc r-xp
      {0x7fbf225f1000, 0x7fbf22644000, 1},  // libc r--p, across the PMD boundary
      {0x7fbf22644000, 0x7fbf22648000, 1},  // libc r--p (relro)
      {0x7fbf22648000, 0x7fbf2264a000, 1},  // libc rw-p
      {0x7fbf22657000, 0x7fbf22658000, 2},  // locale-archive r--p (LC_ADDRESS): next, its start is the ceiling
  }, {{"libc.so.6", 0}, {"locale-archive", 1}}};
  static constexpr int kFirst = 2, kCount = 5;  // libc

  static void concurrently(teardown_world<rwsem_abstract>* w) { unmap_mapping_range(&w->mappings[1]); }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_vs_truncate, "munmap_vs_truncate",
                            "abstract rw_semaphore: munmap of libc (5 VMAs across a PMD boundary, sleep.maps "
                            "addresses) whose prev and next share its first and last PTE tables, against "
                            "truncation of the neighbours' file",
                            "full");
