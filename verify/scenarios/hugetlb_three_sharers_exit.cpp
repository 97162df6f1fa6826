// Three processes map the same PUD-aligned gigabyte of a hugetlbfs file: the first allocated the
// PMD table, the other two share it (their faults ran huge_pmd_share before the scenario starts:
// its share count is 2). The first exits while the other two exit one after the other. Each
// final zap unshares the table while others still map it (the first one leaves it with a count
// of 1, not 0); whichever process is last, the owner or not, zaps it as its own and
// free_pgtables frees it. No table is freed while a process still maps it, none is left behind.
#include "verify/scenarios/hugetlb_world.hpp"

struct hugetlb_three_sharers_exit : scenario_base<hugetlb_three_sharers_exit, 2> {
  static constexpr layout<2, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},              // libc r--p (free_pgtables batches it)
      {0x7f4000000000, 0x7f4040000000, 2, true, true},  // hugetlbfs file, shared writable, 1 GiB
  }, {{"libc.so.6", 0}, {"/dev/hugepages/pool", 1}}};
  static constexpr layout_vma kSharers[2] = {{0x7f8000000000, 0x7f8040000000, 2, true, true},
                                             {0x7fc000000000, 0x7fc040000000, 2, true, true}};

  teardown_world<rwsem_abstract> w;
  hugetlb_vma_lock locks[3] = {hugetlb_vma_lock{"hugetlb vma_lock of the first process"},
                               hugetlb_vma_lock{"hugetlb vma_lock of the second process"},
                               hugetlb_vma_lock{"hugetlb vma_lock of the third process"}};
  mm_struct *first, *second;
  mm_struct third_mm{"third process"};  // the world holds two mms
  mm_struct* third = &third_mm;

  hugetlb_three_sharers_exit() {
    w.set_files(kLayout.files, 2);
    first = w.add_mm("first process", kLayout.vmas, 2);
    second = w.add_mm("second process", kSharers, 1, false);
    w.add_vmas(third, &kSharers[1], 1, false);
    first->vmas[1]->vm_private_data = &locks[0];
    second->vmas[0]->vm_private_data = &locks[1];
    third->vmas[0]->vm_private_data = &locks[2];
    table_page* table = first->pgtables.find(PMD_TABLE, kLayout.vmas[1].start);
    w.share_pmd_table_at_setup(second, kSharers[0].start, table);
    w.share_pmd_table_at_setup(third, kSharers[1].start, table);
  }

  void thread(unsigned i) {
    if (i == 0) {
      exit_mmap(first);
    } else {
      exit_mmap(second);
      exit_mmap(third);
    }
  }

  void after() {
    w.check_torn_down(first);
    w.check_torn_down(second);
    w.check_torn_down(third);
    w.check_trees(0, 0);
    w.report_write_locks(0, 1);  // the hugetlb zap's i_mmap_lock_write, besides free_pgtables'
    if (g_hugetlb_unshared) exploration::stat("reached_pmd_unshared", 1);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(hugetlb_three_sharers_exit, "hugetlb_three_sharers_exit",
                            "abstract rw_semaphore: exit of [A] and 1 GiB of hugetlbfs file B whose PMD table two "
                            "other processes share, against those two exiting one after the other: the table is "
                            "freed by its last user",
                            "full+reduce");
