// Deferred page-table freeing (the mmu_gather's table batch, RCU) under GUP-fast: each scenario
// verifies and reaches the window the deferral protects (a scenario whose walker never got
// there would verify vacuously), and each seeded bug of the mechanism is caught.
#include "tests/scenario_run.hpp"

TEST(DeferredFreeing, GupFastReadsInsideTablesMunmapClearedBeforeTheirPagesAreFreed) {
  RunResult r = run_named("munmap_vs_gup_fast");
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats["reached_lockless_read_of_cleared_table"], 1);
}

TEST(DeferredFreeing, GupFastReadsInsideATableKhugepagedRetractedBeforeItsPageIsFreed) {
  RunResult r = run_named("gup_fast_vs_khugepaged");
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats["reached_lockless_read_of_cleared_table"], 1);
}

TEST(DeferredFreeing, AnyTablePageFreedBeforeTheGracePeriodIsAUseAfterFreeUnderGupFast) {
  for (const char* m : {"table_freed_before_flush", "gup_fast_irqs_enabled"}) {
    RunResult r = run_named("munmap_vs_gup_fast", m);
    EXPECT_EQ(r.result, "counterexample") << m;
    EXPECT_EQ(r.kind, "use-after-free") << m << ": " << r.message;
  }
  RunResult r = run_named("gup_fast_vs_khugepaged", "retract_pte_free_at_once");
  EXPECT_EQ(r.kind, "use-after-free") << r.message;
}
