// A hugetlbfs file mapped shared over a whole PUD-aligned gigabyte by two processes, the first
// with its PMD table filled, the second taking its first fault there, while the file is
// truncated to 0. The fault holds its VMA's hugetlb vma_lock and then takes i_mmap_rwsem
// (huge_pmd_share); truncation holds i_mmap_rwsem for write and so only try-locks each VMA's
// vma_lock, skipping the VMA whose fault holds it. Truncation zaps the first process's table,
// unsharing it if the fault shared it already.
#include "verify/scenarios/hugetlb_world.hpp"

struct hugetlb_fault_vs_truncate : scenario_base<hugetlb_fault_vs_truncate, 2>, hugetlb_two_mappers {
  static constexpr unsigned long kFault = 0x7f8000200000;

  void thread(unsigned i) {
    if (i == 0)
      hugetlb_vmtruncate(&w.mappings[1]);
    else
      hugetlb_fault(second->vmas[0], kFault);
  }

  void after() {
    // Nothing is unmapped: both VMAs keep their tables (a shared one, or their own).
    w.check_tables_kept(first->vmas[0]);
    w.check_tables_kept(second->vmas[0]);
    table_page* pud = second->pgtables.find(PMD_TABLE, kFault);
    VM_CHECK(pud->ghost_state == PT_PRESENT, "page tables", "the fault's pud entry in %s is none after the fault",
             second->name);
    if (g_hugetlb_pmd_shared) exploration::stat("reached_pmd_shared", 1);
    if (g_hugetlb_unshared) exploration::stat("reached_pmd_unshared", 1);
    if (g_hugetlb_vma_lock_contended) exploration::stat("reached_vma_lock_contended", 1);
  }
};

VMAVERIFY_SCENARIO(hugetlb_fault_vs_truncate, "hugetlb_fault_vs_truncate",
                   "abstract rw_semaphore: truncation of a hugetlbfs file (hugetlb_vmdelete_list) against a "
                   "hugetlb fault that shares another process's PMD table",
                   "full");
