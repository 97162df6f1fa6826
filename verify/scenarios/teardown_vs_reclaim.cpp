// Exit of a library layout while reclaim walks the library's rmap with try_lock
// (shrink_folio_list -> folio_referenced): i_mmap_trylock_read fails while the teardown holds
// the write lock, and the walker must give up rather than walk the tree.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_vs_reclaim : exit_against<teardown_vs_reclaim> {
  static constexpr layout<6, 1> kLayout = {{
      {0x7fbf22475000, 0x7fbf2249b000, 1},  // libc r--p (tests/data/sleep.maps)
      {0x7fbf2249b000, 0x7fbf225f1000, 1},  // libc r-xp
      {0x7fbf225f1000, 0x7fbf22644000, 1},  // libc r--p
      {0x7fbf22644000, 0x7fbf22648000, 1},  // libc r--p (relro)
      {0x7fbf22648000, 0x7fbf2264a000, 1},  // libc rw-p
      {0x7fbf2264a000, 0x7fbf22657000, 0},  // bss, anonymous
  }, {{"libc.so.6", 0}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[0], 0x1d0, true); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_vs_reclaim, "teardown_vs_reclaim",
                            "abstract rw_semaphore: exit of libc (5 VMAs + bss) against reclaim's rmap walk "
                            "with try_lock, which gives up on contention",
                            "full");
