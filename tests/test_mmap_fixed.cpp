// mmap with MAP_FIXED over an existing file mapping (the fourth caller of free_pgtables): the old
// VMA's tables are freed before the new VMA's driver fills the range, and on the driver's
// failure the range becomes a gap, never the old VMA again.
#include "tests/scenario_run.hpp"

TEST(MmapFixed, TheNewMappingsDriverFillsTheTablesTheOldMappingFreed) {
  expect_verified_reaching("mmap_fixed_vs_truncate", {"reached_table_allocated_again"});
}

TEST(MmapFixed, ADriverThatFailsAfterFillingTheTablesLeavesAGap) {
  expect_verified_reaching("mmap_fixed_error_vs_truncate", {"reached_table_allocated_again"});
}

TEST(MmapFixed, FreeingTheOldTablesAfterTheDriverFilledThemLosesTheNewMappingsTables) {
  expect_caught_as("mmap_fixed_vs_truncate", "mmap_clears_ptes_after_mmap_file", "page tables");
}

TEST(MmapFixed, PuttingTheClearedOldMappingBackOnFailureIsCaught) {
  expect_caught_as("mmap_fixed_error_vs_truncate", "mmap_abort_reattaches_cleared_vmas", "exactly once");
}
