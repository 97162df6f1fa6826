// Deferred page-table freeing (the mmu_gather's table batch, RCU) under GUP-fast: each scenario
// verifies and reaches the window the deferral protects (a scenario whose walker never got
// there would verify vacuously), and each seeded bug of the mechanism is caught.
#include "tests/scenario_run.hpp"

TEST(DeferredFreeing, GupFastReadsInsideTablesMunmapClearedBeforeTheirPagesAreFreed) {
  expect_verified_reaching("munmap_vs_gup_fast", {"reached_lockless_read_of_cleared_table"});
}

TEST(DeferredFreeing, GupFastReadsInsideATableKhugepagedRetractedBeforeItsPageIsFreed) {
  expect_verified_reaching("gup_fast_vs_khugepaged", {"reached_lockless_read_of_cleared_table"});
}

TEST(DeferredFreeing, AnyTablePageFreedBeforeTheGracePeriodIsAUseAfterFreeUnderGupFast) {
  expect_caught_as("munmap_vs_gup_fast", "table_freed_before_flush", "use-after-free");
  expect_caught_as("munmap_vs_gup_fast", "gup_fast_irqs_enabled", "use-after-free");
  expect_caught_as("gup_fast_vs_khugepaged", "retract_pte_free_at_once", "use-after-free");
}
