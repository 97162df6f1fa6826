// Page faults racing with munmap's freeing of page tables. One that grows the stack into the
// range must wait for munmap's mmap_lock (v6.5 on), landing either in the old mapping before
// munmap or in a table it allocates again after; growing under the read lock races with the
// free. One inside the range under the per-VMA lock is kept out by vma_start_write.
#include "tests/scenario_run.hpp"

TEST(StackFault, LandsInTheMappingBeforeMunmapOrAllocatesTheFreedTableAgainAfter) {
  RunResult r = run_named("munmap_vs_stack_fault");
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats["reached_fault_in_the_mapping_before_munmap"], 1);
  EXPECT_EQ(r.stats["reached_stack_grew_into_a_table_allocated_again"], 1);
}

TEST(StackFault, GrowingTheStackUnderTheReadLockRacesWithMunmapsFree) {
  RunResult r = run_named("munmap_vs_stack_fault", "stack_expanded_under_read_lock");
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, "use-after-free") << r.message;
}

TEST(VmaLockedFault, FinishesBeforeMunmapOrFallsBackAndFindsNoVma) {
  RunResult r = run_named("munmap_vs_vma_locked_fault");
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats["reached_fault_before_munmap"], 1);
  EXPECT_EQ(r.stats["reached_fault_after_munmap_failed"], 1);
}

TEST(VmaLockedFault, MunmapThatDoesNotWriteLockTheVmaRacesWithTheFault) {
  RunResult r = run_named("munmap_vs_vma_locked_fault", "munmap_gathers_without_vma_start_write");
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, "page-table leak") << r.message;
}
