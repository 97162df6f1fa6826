// The faithful rw_semaphore under a small teardown: checks that the abstract semaphore of the
// other teardown scenarios stands for it (same verdicts on the same code).
#include "verify/scenarios/teardown_world.hpp"

struct rwsem_agrees : exit_against<rwsem_agrees, rwsem_count_model> {
  static constexpr layout<2, 1> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},  // libc r--p
      {0x7f0000010000, 0x7f0000020000, 1},  // libc r-xp
  }, {{"libc.so.6", 0}}};

  static void concurrently(teardown_world<rwsem_count_model>* w) { rmap_walk_file(&w->mappings[0], 0); }
};

// Full search with the sleep-set reduction: plain full search passes 20M iterations (minutes)
// since the semaphore follows the kernel's wake-up rules; reduced it is 0.38M.
// No unbatched baseline here: it adds a lock round trip of the faithful semaphore and the
// search passes minutes; the baseline is verified on the abstract-semaphore scenarios.
VMAVERIFY_TEARDOWN_SCENARIO_BASELINE(rwsem_agrees, "rwsem_agrees",
                                     "faithful rw_semaphore (kernel/locking/rwsem.c) under a small teardown: exit of "
                                     "[A][A] against rmap_walk_file on A",
                                     "full+reduce", false);
