// fork of a process running `sleep` whose dup_mmap fails in copy_page_range of the second VMA
// (the text), after filling part of its tables, while an rmap walker looks for a page of that
// text: it meets the parent's VMA and the child's copies as they are linked into i_mmap, their
// tables being built, and then torn down by the child's exit, which must stop at the
// XA_ZERO_ENTRY that dup_mmap left after the failed copy.
#include "verify/scenarios/fork_fails_world.hpp"

struct fork_fails_vs_rmap_walk : fork_fails_against_rmap_walk<fork_fails_vs_rmap_walk> {
  static constexpr int kFailAt = 1;  // the text; XA_ZERO_ENTRY where the last VMA would go
  static constexpr unsigned long kWalkedPgoff = 2;  // a page of the text
};

VMAVERIFY_TEARDOWN_SCENARIO(fork_fails_vs_rmap_walk, "fork_fails_vs_rmap_walk",
                            "abstract rw_semaphore: fork whose dup_mmap links and fills the child's copies and "
                            "fails in copy_page_range of the second, then the child's exit (to XA_ZERO_ENTRY), "
                            "against rmap_walk_file on the text",
                            "full");
