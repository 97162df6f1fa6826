// hugetlb PMD sharing (model/hugetlb.hpp): each scenario verifies and reaches the windows its
// protocol protects (a scenario whose racing task never got there would verify vacuously), and
// each seeded bug of the protocol is caught with its kind.
#include "tests/scenario_run.hpp"

TEST(HugetlbPmdSharing, AFaultSharesTheExitingProcessTableOnlyUntilItsFinalZap) {
  expect_verified_reaching("exit_vs_hugetlb_pmd_share", {"reached_pmd_shared", "reached_pmd_unshared",
                                                          "reached_share_refused_after_final_zap"});
}

TEST(HugetlbPmdSharing, TruncationSkipsTheVmaWhoseFaultHoldsItsLockAndUnsharesTheOther) {
  expect_verified_reaching("hugetlb_fault_vs_truncate",
                           {"reached_pmd_shared", "reached_pmd_unshared", "reached_vma_lock_contended"});
}

TEST(HugetlbPmdSharing, ASharedTableFreedByANonLastUserIsAUseAfterFree) {
  expect_caught_as("exit_vs_hugetlb_pmd_share", "hugetlb_zap_end_keeps_vma_lock", "use-after-free");
  expect_caught_as("exit_vs_hugetlb_pmd_share", "huge_pmd_unshare_ignores_sharing", "use-after-free");
}

TEST(HugetlbPmdSharing, TakingTheVmaLockAfterIMmapRwsemDeadlocksWithAFault) {
  expect_caught_as("hugetlb_fault_vs_truncate", "vmdelete_list_waits_for_vma_lock", "deadlock");
  // Two different VMAs' vma_locks: no run blocks, lockdep's order check reports it.
  expect_caught_as("exit_vs_hugetlb_pmd_share", "hugetlb_zap_begin_takes_i_mmap_first", "deadlock");
}

TEST(HugetlbPmdSharing, AFaultThatLosesTheRaceToShareGivesItsCountBack) {
  expect_verified_reaching("hugetlb_faults_race_to_share", {"reached_share_lost_race"});
  expect_caught_as("hugetlb_faults_race_to_share", "huge_pmd_share_keeps_count_on_lost_race", "counter");
}

TEST(HugetlbPmdSharing, AMisalignedVmaNeitherSharesNorIsSharedAndExitsCleanly) {
  expect_verified_reaching("hugetlb_misaligned_vs_share", {"reached_pmd_shared"});
}

TEST(HugetlbPmdSharing, NoFaultSharesATableThatIsNotAWholeGigabyteOfAVma) {
  expect_verified_reaching("hugetlb_short_vma_vs_share", {});
}

TEST(HugetlbPmdSharing, AShortVmaThatWantsToShareTakesATableCoveringMoreThanItself) {
  expect_caught_as("hugetlb_short_vma_vs_share", "want_pmd_share_ignores_vma_end", "page tables");
}

TEST(HugetlbPmdSharing, ATableThreeProcessesShareIsFreedByItsLastUserWhoeverThatIs) {
  expect_verified_reaching("hugetlb_three_sharers_exit", {"reached_pmd_unshared"});
  // The owner's zap must unshare it while two others map it, not clear and free it.
  expect_caught_as("hugetlb_three_sharers_exit", "huge_pmd_unshare_ignores_sharing", "use-after-free");
}
