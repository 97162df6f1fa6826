// Exit of a non-PIE process, whose VMAs sit low in the address space: a file mapped at the
// lowest address mmap_min_addr allows (64 KiB, as DOS emulators and Wine map), the binary at
// 0x400000 and a data file at 1 GiB. The group ceilings are then below 1 GiB and below 512 GiB,
// where free_pmd_range and free_pud_range round the ceiling down to 0 and must free nothing
// (their `if (!ceiling) return`), since the next group's VMA still needs the table above.
// An rmap walker walks the binary, whose page tables are shared with nobody else.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_low_non_pie : exit_against<teardown_low_non_pie> {
  static constexpr layout<4, 2> kLayout = {{
      {0x00010000, 0x00011000, 2},  // low.bin r--p at mmap_min_addr: ceiling 0x400000, below 1 GiB
      {0x00400000, 0x00401000, 1},  // a.out r--p
      {0x00401000, 0x00402000, 1},  // a.out r-xp: ceiling 0x40000000, below 512 GiB
      {0x40000000, 0x40001000, 2},  // low.bin rw-p at 1 GiB (MAP_FIXED), the last VMA
  }, {{"a.out", 0}, {"low.bin", 1}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[0], 1); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_low_non_pie, "teardown_low_non_pie",
                            "abstract rw_semaphore: exit of a non-PIE process (a file at 64 KiB, the binary at "
                            "0x400000, a file at 1 GiB), so that group ceilings round down to 0, against "
                            "rmap_walk_file on the binary",
                            "full");
