// Exit of a process whose VMAs form two free_pgd_range groups (more than PMD_SIZE apart) under
// one PMD table: a 4 MiB PMD-aligned data-file mapping, then, past a gap, a locale file and libc
// at their tests/data/sleep.maps addresses. The first group's free_pgd_range must stop below
// next->vm_start: the PMD and PUD tables stay until the second group, still in i_mmap and
// walked by an rmap walker, is hidden. check_mm then finds every table page freed.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_groups_share_pmd : exit_against<teardown_groups_share_pmd> {
  static constexpr layout<8, 3> kLayout = {{
      {0x7fbf21c00000, 0x7fbf22000000, 3},  // data file r--s, 4 MiB, PMD-aligned (thp_get_unmapped_area)
      {0x7fbf22414000, 0x7fbf2246b000, 2},  // LC_CTYPE r--p: the second group starts mid PTE table
      {0x7fbf22475000, 0x7fbf2249b000, 1},  // libc r--p
      {0x7fbf2249b000, 0x7fbf225f1000, 1},  // libc r-xp
      {0x7fbf225f1000, 0x7fbf22644000, 1},  // libc r--p
      {0x7fbf22644000, 0x7fbf22648000, 1},  // libc r--p (relro)
      {0x7fbf22648000, 0x7fbf2264a000, 1},  // libc rw-p
      {0x7fbf2264a000, 0x7fbf22657000, 0},  // bss, anonymous
  }, {{"libc.so.6", 0}, {"LC_CTYPE", 1}, {"data.db", 1}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[0], 0x30); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_groups_share_pmd, "teardown_groups_share_pmd",
                            "abstract rw_semaphore: exit of two free_pgd_range groups under one PMD table "
                            "([data 4 MiB] gap [LC_CTYPE][libc x5][bss]) against rmap_walk_file on libc",
                            "full");
