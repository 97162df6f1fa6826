// Page tables allocated while others are freed. A fault that grows the stack into a range
// munmap frees must wait for munmap's mmap_lock (v6.5 on), landing either in the old mapping
// before munmap or in a table it allocates again after; growing under the read lock races with
// the free. A fault inside the range under the per-VMA lock is kept out by vma_start_write. A
// failing fork's copies, linked and filled while an rmap walker runs, are all torn down.
#include "tests/scenario_run.hpp"

TEST(StackFault, LandsInTheMappingBeforeMunmapOrAllocatesTheFreedTableAgainAfter) {
  expect_verified_reaching("munmap_vs_stack_fault", {"reached_fault_in_the_mapping_before_munmap",
                                                     "reached_stack_grew_into_a_table_allocated_again"});
}

TEST(StackFault, GrowingTheStackUnderTheReadLockRacesWithMunmapsFree) {
  expect_caught_as("munmap_vs_stack_fault", "stack_expanded_under_read_lock", "use-after-free");
}

TEST(StackFault, GrowsOrFailsOnTheGuardGapAgainstAMappingPlacedBelowTheStack) {
  expect_verified_reaching("stack_fault_vs_mmap_in_guard_gap",
                           {"reached_stack_grew_then_mapped_below", "reached_fault_refused_by_guard_gap"});
}

TEST(StackFault, AGuardGapTestedBeforeTheLockUpgradeLetsTheStackGrowOntoANewMapping) {
  expect_caught_as("stack_fault_vs_mmap_in_guard_gap", "stack_guard_gap_checked_before_upgrade", "guard gap");
}

TEST(MunmapAll, FreesEveryTableBetweenTheFirstUserAddressAndTheTop) {
  expect_verified_reaching("munmap_all_vmas_vs_fault", {"reached_fault_before_munmap", "reached_fault_found_no_vma"});
  expect_caught_as("munmap_all_vmas_vs_fault", "free_pmd_range_no_minus_one", "page-table leak");
}

TEST(VmaLockedFault, FinishesBeforeMunmapOrFallsBackAndFindsNoVma) {
  expect_verified_reaching("munmap_vs_vma_locked_fault",
                           {"reached_fault_before_munmap", "reached_fault_after_munmap_failed"});
}

TEST(VmaLockedFault, MunmapThatDoesNotWriteLockTheVmaRacesWithTheFault) {
  expect_caught_as("munmap_vs_vma_locked_fault", "munmap_gathers_without_vma_start_write", "page-table leak");
}

TEST(FailedFork, TheChildsExitTearsDownEveryCopyLinkedUpToTheMarker) {
  expect_verified_reaching("fork_fails_vs_rmap_walk", {"reached_walker_met_a_copy"});
  expect_caught_as("fork_fails_vs_rmap_walk", "dup_mmap_marks_the_failed_copy", "exactly once");
  expect_caught_as("fork_fails_vs_rmap_walk", "xa_is_zero_ignored", "bad pointer");
}

TEST(FailedFork, AFailureAtTheLastVmaLeavesNoMarkerAndTearsDownEveryCopy) {
  expect_verified_reaching("fork_fails_at_last_vma_vs_rmap_walk", {"reached_walker_met_a_copy"});
  expect_caught_as("fork_fails_at_last_vma_vs_rmap_walk", "dup_mmap_marks_the_failed_copy", "exactly once");
}
