// A failed fork (kernel/fork.c) where the copy stopped right after a VMA that starts a group of
// its own: free_pgtables meets XA_ZERO_ENTRY as the next VMA of a group's first VMA (the test at
// the top of its loop), not while gathering. The child has the binary's two VMAs, then libc's
// first, far away; the parent's next libc VMA, never copied, follows the marker.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_failed_fork_group_end : failed_fork_against<teardown_failed_fork_group_end> {
  static constexpr layout<3, 2> kLayout = {{
      {0x5583e180f000, 0x5583e1811000, 1},  // sleep r--p (tests/data/sleep.maps), duplicated
      {0x5583e1811000, 0x5583e1816000, 1},  // sleep r-xp, duplicated
      {0x7fbf22475000, 0x7fbf2249b000, 2},  // libc r--p, duplicated: a group of its own
  }, {{"/usr/bin/sleep", 0}, {"libc.so.6", 1}}};
  // The parent's libc r-xp after the failure point, still in the child's tree after the marker.
  static constexpr layout_vma kParentVma = {0x7fbf2249b000, 0x7fbf225f1000, 2};
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_failed_fork_group_end, "teardown_failed_fork_group_end",
                            "abstract rw_semaphore: exit of a child whose dup_mmap failed right after a VMA "
                            "that starts a group ([A][A] [B] XA_ZERO_ENTRY [parent's B]) against rmap_walk_file on B",
                            "full");
