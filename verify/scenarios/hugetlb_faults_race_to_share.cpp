// Two threads of a process fault in the same gigabyte of a hugetlbfs file that another process
// maps shared with its PMD table filled. Each fault holds the VMA's hugetlb vma_lock for read
// (both can) and finds the other process's table in huge_pmd_share: both take a share count
// (ptdesc_pmd_pts_inc), and under mm->page_table_lock the first populates the pud entry while
// the second finds it taken and must give its count back. At the end the table's count is the
// number of processes that share it, else its last user frees it too early or never.
#include "model/hugetlb.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct hugetlb_faults_race_to_share : scenario_base<hugetlb_faults_race_to_share, 2> {
  static constexpr layout_vma kFirst[1] = {{0x7f4000000000, 0x7f4040000000, 1, true, true}};
  static constexpr layout_vma kSecond[1] = {{0x7f8000000000, 0x7f8040000000, 1, true, true}};
  static constexpr layout_file kFiles[1] = {{"/dev/hugepages/pool", 1}};
  static constexpr unsigned long kFaults[2] = {0x7f8000200000, 0x7f8000600000};

  teardown_world<rwsem_abstract> w;
  hugetlb_vma_lock first_lock{"hugetlb vma_lock of the first process"};
  hugetlb_vma_lock second_lock{"hugetlb vma_lock of the faulting process"};
  mm_struct *first, *second;

  hugetlb_faults_race_to_share() {
    w.set_files(kFiles, 1);
    first = w.add_mm("first process", kFirst, 1);
    second = w.add_mm("faulting process", kSecond, 1, false);
    first->vmas[0]->vm_private_data = &first_lock;
    second->vmas[0]->vm_private_data = &second_lock;
  }

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
