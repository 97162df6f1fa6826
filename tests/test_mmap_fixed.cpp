// mmap with MAP_FIXED over an existing file mapping (the fourth caller of free_pgtables): the old
// VMA's tables are freed before the new VMA's driver fills the range, and on the driver's
// failure the range becomes a gap, never the old VMA again.
#include "tests/scenario_run.hpp"

TEST(MmapFixed, TheNewMappingsDriverFillsTheTablesTheOldMappingFreed) {
  RunResult r = run_named("mmap_fixed_vs_truncate");
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats["reached_table_allocated_again"], 1);
}

TEST(MmapFixed, ADriverThatFailsAfterFillingTheTablesLeavesAGap) {
  RunResult r = run_named("mmap_fixed_error_vs_truncate");
  EXPECT_EQ(r.result, "verified") << r.kind << ": " << r.message;
  EXPECT_EQ(r.stats["reached_table_allocated_again"], 1);
}

TEST(MmapFixed, FreeingTheOldTablesAfterTheDriverFilledThemLosesTheNewMappingsTables) {
  RunResult r = run_named("mmap_fixed_vs_truncate", "mmap_clears_ptes_after_mmap_file");
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, "page tables") << r.message;
}

TEST(MmapFixed, PuttingTheClearedOldMappingBackOnFailureIsCaught) {
  RunResult r = run_named("mmap_fixed_error_vs_truncate", "mmap_abort_reattaches_cleared_vmas");
  EXPECT_EQ(r.result, "counterexample");
  EXPECT_EQ(r.kind, "exactly once") << r.message;
}
