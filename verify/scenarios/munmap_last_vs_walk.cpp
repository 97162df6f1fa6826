// munmap of the last VMA of an mm (nothing above it), whose first PTE table it shares with the
// VMA below: unmap_region passes USER_PGTABLES_CEILING (0, the top) as ceiling and prev's end
// as floor, so only the floor keeps the shared table. An rmap walker walks the file of both.
#include "verify/scenarios/teardown_world.hpp"

struct munmap_last_vs_walk : munmap_against<munmap_last_vs_walk> {
  static constexpr layout<2, 1> kLayout = {{
      {0x7fbf22475000, 0x7fbf2249b000, 1},  // libc r--p: prev, its end is the floor
      {0x7fbf2249b000, 0x7fbf225f1000, 1},  // libc r-xp, the highest VMA: unmapped, no next
  }, {{"libc.so.6", 0}}};
  static constexpr int kFirst = 1, kCount = 1;

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[0], 0); }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_last_vs_walk, "munmap_last_vs_walk",
                            "abstract rw_semaphore: munmap of an mm's highest VMA (ceiling 0, the top), which "
                            "shares its first PTE table with prev, against rmap_walk_file on their file",
                            "full");
