// What the page tables map (model/page_tables.hpp's ghost pages): the scenarios that make a
// misplaced or lost page visible verify, reach the window their mechanism protects, and each
// seeded bug that maps, zaps or drops the wrong page is caught with its kind. Also the
// descent check: free_pgd_range never reads inside a table through a none entry.
#include "tests/scenario_run.hpp"

TEST(WhatTablesMap, AHolePunchZapsExactlyTheHoleOfEachVma) {
  expect_verified_reaching("punch_hole_vs_exit", {});
  // vm_pgoff left out: the zap lands beside the hole in a VMA mapping the file from page 0x100.
  expect_caught_as("punch_hole_vs_exit", "unmap_mapping_range_tree_ignores_vm_pgoff", "zap range");
  // even_cows ignored: a private copy's written page in the hole is dropped.
  expect_caught_as("punch_hole_vs_exit", "punch_hole_zaps_private_cows", "zap range");
}

TEST(WhatTablesMap, AnRmapWalkerLooksForItsPageWhereTheVmaMapsIt) {
  expect_verified_reaching("teardown_vs_rmap_walk", {});
  expect_caught_as("teardown_vs_rmap_walk", "vma_address_ignores_vm_pgoff", "rmap address");
}

TEST(WhatTablesMap, KhugepagedRechecksAnonVmaUnderThePageTableLocks) {
  expect_verified_reaching("uffd_copy_vs_khugepaged",
                           {"reached_retract_skipped_on_anon_vma_recheck", "reached_copy_into_a_new_table"});
  expect_caught_as("uffd_copy_vs_khugepaged", "retract_skips_anon_vma_recheck", "page lost");
}

TEST(WhatTablesMap, KhugepagedDropsOnlyTablesTheHugePmdWouldMapInTheirPlace) {
  expect_verified_reaching("exit_vs_khugepaged", {});
  expect_caught_as("exit_vs_khugepaged", "retract_ignores_huge_pmd_fit", "page lost");
}

TEST(WhatTablesMap, FreePgdRangeNeverDescendsThroughANoneEntry) {
  expect_caught_as("teardown_sparse_mapping", "free_pud_range_descends_none", "bad pointer");
}
