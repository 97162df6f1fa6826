// The page-table locks (the PTE table's and the PMD table's split locks, inside their table
// pages) and pte_offset_map_lock's RCU section and pmd recheck: the scenario verifies and
// reaches the window the recheck exists for, and the seeded bug of the mechanism is caught.
#include "tests/scenario_run.hpp"

TEST(PageTableLocks, TruncationFindsThePmdChangedUnderThePteLockAndRetries) {
  expect_verified_reaching("truncate_vs_khugepaged", {"reached_pmd_changed_under_pte_lock"});
}

TEST(PageTableLocks, AnRmapWalkerFindsThePmdChangedUnderThePteLockAndRetries) {
  expect_verified_reaching("rmap_walk_vs_khugepaged", {"reached_pmd_changed_under_pte_lock"});
}

TEST(PageTableLocks, APteLockTakenOutsideRcuIsAUseAfterFreeOfTheRetractedTable) {
  expect_caught_as("truncate_vs_khugepaged", "pte_offset_map_without_rcu", "use-after-free");
  // The same switch under an rmap walker: pte_free_defer is what keeps its read safe too.
  RunResult r = run_named("rmap_walk_vs_khugepaged", "pte_offset_map_without_rcu");
  EXPECT_EQ(r.kind, "use-after-free") << r.message;
}
