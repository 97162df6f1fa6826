// Exit of a process with a file mapped across a 512 GiB boundary (0x7f8000000000), as a large
// reservation (a JIT's code cache, a database's mapped file) can be: its page tables hang from
// two PGD entries, so free_pgd_range's loop runs twice and pgd_addr_end stops at the boundary.
// An rmap walker walks a page on each side of it.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_across_pgd : exit_against<teardown_across_pgd> {
  static constexpr layout<1, 1> kLayout = {{
      {0x7f7fffe00000, 0x7f8000200000, 1},  // data.db rw-s, 4 MiB across the 512 GiB boundary
  }, {{"data.db", 0}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) {
    rmap_walk_file(&w->mappings[0], 0x1ff);  // the last page below the boundary
    rmap_walk_file(&w->mappings[0], 0x200);  // the first page above it
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_across_pgd, "teardown_across_pgd",
                            "abstract rw_semaphore: exit of a file mapped across a 512 GiB boundary (two PGD "
                            "entries), against rmap walks on both sides of it",
                            "full");
