// Exit of a child whose dup_mmap failed (kernel/fork.c): its maple tree holds the two VMAs that
// were duplicated, then XA_ZERO_ENTRY where duplication stopped, then the parent's VMAs that
// were never copied. free_pgtables must stop at the marker (found while gathering a group),
// while an rmap walker walks the parent's VMA of another file, which stays mapped.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_failed_fork : failed_fork_against<teardown_failed_fork> {
  static constexpr layout<2, 2> kLayout = {{
      {0x5583e180f000, 0x5583e1811000, 1},  // sleep r--p (tests/data/sleep.maps), duplicated
      {0x5583e1811000, 0x5583e1816000, 1},  // sleep r-xp, duplicated
  }, {{"/usr/bin/sleep", 0}, {"libc.so.6", 1}}};
  // The parent's VMA after the failure point, still in the child's tree after the marker.
  static constexpr layout_vma kParentVma = {0x5583e1816000, 0x5583e1818000, 2};
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_failed_fork, "teardown_failed_fork",
                            "abstract rw_semaphore: exit of a child whose dup_mmap failed ([A][A] XA_ZERO_ENTRY "
                            "[parent's B]) against rmap_walk_file on B",
                            "full");
