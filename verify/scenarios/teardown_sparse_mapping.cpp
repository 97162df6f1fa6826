// Exit of a process with a large file reservation of which only the first and the last page were
// ever touched (a database's mapped file, a JIT's code cache): it spans three 512 GiB PGD
// entries, and the tables exist only around the two touched pages, as the kernel allocates
// them on the first fault. So free_pgd_range meets a none P4D entry (the middle 512 GiB) and
// free_pud_range none PUD entries (the 1 GiB stretches before the last page), and must skip
// them (pXd_none_or_clear_bad) while an rmap walker walks each touched page.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_sparse_mapping : exit_against<teardown_sparse_mapping> {
  static constexpr unsigned long kStart = 0x7effffe00000, kEnd = 0x7f8080200000;
  static constexpr layout<1, 1> kLayout = {{
      // data.db rw-s, 514 GiB from 2 MiB below 0x7f0000000000 to 2 GiB + 2 MiB above 0x7f8000000000
      {kStart, kEnd, 1, false, false, false, /*sparse=*/true},
  }, {{"data.db", 0}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) {
    rmap_walk_file(&w->mappings[0], 0);                                // the first page
    rmap_walk_file(&w->mappings[0], ((kEnd - kStart) >> PAGE_SHIFT) - 1);  // the last page
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_sparse_mapping, "teardown_sparse_mapping",
                            "abstract rw_semaphore: exit of a 514 GiB file reservation touched only at its two "
                            "ends (none P4D and PUD entries between), against rmap walks on both",
                            "full");
