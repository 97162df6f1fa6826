// fork of a process running `sleep` whose dup_mmap fails in copy_page_range of its last VMA,
// while an rmap walker looks for a page of that VMA: every VMA was copied, so dup_mmap leaves
// no XA_ZERO_ENTRY (vma_next finds none), and the child's exit must tear down all three copies,
// the failed one with the part of its tables it got. Searched without the reduction: the
// walker's check reads what copy_page_range's tables map (model/actors.hpp, for_each_mapped).
#include "verify/scenarios/fork_fails_world.hpp"

struct fork_fails_at_last_vma_vs_rmap_walk : fork_fails_against_rmap_walk<fork_fails_at_last_vma_vs_rmap_walk> {
  static constexpr int kFailAt = 2;  // the last VMA: no marker
  static constexpr unsigned long kWalkedPgoff = 7;  // a page of the last VMA
};

VMAVERIFY_TEARDOWN_SCENARIO(fork_fails_at_last_vma_vs_rmap_walk, "fork_fails_at_last_vma_vs_rmap_walk",
                            "abstract rw_semaphore: fork whose dup_mmap fails in copy_page_range of the last "
                            "VMA (no XA_ZERO_ENTRY), then the child's exit of all three copies, against "
                            "rmap_walk_file on the last VMA's page",
                            "full");
