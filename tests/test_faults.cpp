// Page faults racing with munmap's freeing of page tables. One that grows the stack into the
// range must wait for munmap's mmap_lock (v6.5 on), landing either in the old mapping before
// munmap or in a table it allocates again after; growing under the read lock races with the
// free. One inside the range under the per-VMA lock is kept out by vma_start_write.
#include "tests/scenario_run.hpp"

TEST(StackFault, LandsInTheMappingBeforeMunmapOrAllocatesTheFreedTableAgainAfter) {
  expect_verified_reaching("munmap_vs_stack_fault", {"reached_fault_in_the_mapping_before_munmap",
                                                     "reached_stack_grew_into_a_table_allocated_again"});
}

TEST(StackFault, GrowingTheStackUnderTheReadLockRacesWithMunmapsFree) {
  expect_caught_as("munmap_vs_stack_fault", "stack_expanded_under_read_lock", "use-after-free");
}

TEST(VmaLockedFault, FinishesBeforeMunmapOrFallsBackAndFindsNoVma) {
  expect_verified_reaching("munmap_vs_vma_locked_fault",
                           {"reached_fault_before_munmap", "reached_fault_after_munmap_failed"});
}

TEST(VmaLockedFault, MunmapThatDoesNotWriteLockTheVmaRacesWithTheFault) {
  expect_caught_as("munmap_vs_vma_locked_fault", "munmap_gathers_without_vma_start_write", "page-table leak");
}
