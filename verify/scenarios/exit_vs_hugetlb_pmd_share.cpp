// Two processes map the same 1 GiB of a hugetlbfs file (the first a library too), each over a whole PUD-aligned gigabyte
// (a database's shared buffer pool): the first exits while a thread of the second takes its
// first fault there, and then the second exits too. The fault may map the first process's PMD
// table instead of allocating its own (huge_pmd_share). If it does so before the first
// process's zap, that zap unshares it and the second process frees it; after the zap, whose
// final step freed the VMA's hugetlb vma_lock, it must not, although the VMA is still in i_mmap
// with its PMD table until free_pgtables unlinks it and frees the table.
#include "model/hugetlb.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct exit_vs_hugetlb_pmd_share : scenario_base<exit_vs_hugetlb_pmd_share, 2> {
  static constexpr layout<2, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},              // libc r--p
      {0x7f4000000000, 0x7f4040000000, 2, true, true},  // hugetlbfs file, shared writable, 1 GiB
  }, {{"libc.so.6", 0}, {"/dev/hugepages/pool", 1}}};
  static constexpr layout_vma kSecond[1] = {{0x7f8000000000, 0x7f8040000000, 2, true, true}};
  static constexpr unsigned long kFault = 0x7f8000200000;  // its second 2 MiB page

  teardown_world<rwsem_abstract> w;
  hugetlb_vma_lock first_lock{"hugetlb vma_lock of the exiting process"};
  hugetlb_vma_lock second_lock{"hugetlb vma_lock of the faulting process"};
  mm_struct *first, *second;

  exit_vs_hugetlb_pmd_share() {
    w.set_files(kLayout.files, 2);
    first = w.add_mm("exiting process", kLayout.vmas, 2);
    second = w.add_mm("faulting process", kSecond, 1, false);
    first->vmas[1]->vm_private_data = &first_lock;
    second->vmas[0]->vm_private_data = &second_lock;
  }

  void thread(unsigned i) {
    if (i == 0) {
      exit_mmap(first);
    } else {
      hugetlb_fault(second->vmas[0], kFault);
      exit_mmap(second);
    }
  }

  void after() {
    w.check_torn_down(first);
    w.check_torn_down(second);
    w.check_trees(0, 0);
    w.report_write_locks(0, 1);  // the hugetlb zap's i_mmap_lock_write, besides free_pgtables'
    if (g_hugetlb_pmd_shared) exploration::stat("reached_pmd_shared", 1);
    if (g_hugetlb_unshared) exploration::stat("reached_pmd_unshared", 1);
    if (g_hugetlb_share_refused) exploration::stat("reached_share_refused_after_final_zap", 1);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(exit_vs_hugetlb_pmd_share, "exit_vs_hugetlb_pmd_share",
                            "abstract rw_semaphore: exit of [A] and a process's 1 GiB of hugetlbfs file B against a "
                            "second process's hugetlb fault there (huge_pmd_share of the first's PMD table) and "
                            "then its exit",
                            "full+reduce");
