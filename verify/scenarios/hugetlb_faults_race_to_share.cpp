// Two threads of a process fault in the same gigabyte of a hugetlbfs file that another process
// maps shared with its PMD table filled. Each fault holds the VMA's hugetlb vma_lock for read
// (both can) and finds the other process's table in huge_pmd_share: both take a share count
// (ptdesc_pmd_pts_inc), and under mm->page_table_lock the first populates the pud entry while
// the second finds it taken and must give its count back. At the end the table's count is the
// number of processes that share it, else its last user frees it too early or never.
#include "verify/scenarios/hugetlb_world.hpp"

struct hugetlb_faults_race_to_share : scenario_base<hugetlb_faults_race_to_share, 2>, hugetlb_two_mappers {
  static constexpr unsigned long kFaults[2] = {0x7f8000200000, 0x7f8000600000};

  void thread(unsigned i) { hugetlb_fault(second->vmas[0], kFaults[i]); }

  void after() {
    table_page* pud = second->pgtables.find(PMD_TABLE, kFaults[0]);
    VM_CHECK(pud->ghost_state == PT_PRESENT && pud->shared, "page tables",
             "the faults' pud entry in %s does not point to the first process's PMD table", second->name);
    table_page* table = page_of(pud);
    int count = table->pmd_pts.load(rl::memory_order_relaxed);
    VM_CHECK(count == table->ghost_users - 1, "counter",
             "PMD table %#lx of %s counts %d sharers (ptdesc_pmd_pts_count) but %d other process(es) map it",
             table->base, first->name, count, table->ghost_users - 1);
    if (g_hugetlb_share_lost_race) exploration::stat("reached_share_lost_race", 1);
  }
};

VMAVERIFY_SCENARIO(hugetlb_faults_race_to_share, "hugetlb_faults_race_to_share",
                   "abstract rw_semaphore: two hugetlb faults of one process in the same gigabyte, both finding "
                   "another process's PMD table to share (huge_pmd_share), one populating the pud entry and the "
                   "other giving its share count back",
                   "full+reduce");
