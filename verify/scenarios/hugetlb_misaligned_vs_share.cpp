// A process maps a library and a gigabyte of a hugetlbfs file 2 MiB off a PUD boundary (so over two PMD
// tables, neither of which it may share), takes a fault there and exits, while a thread of a
// third process faults in the same file and looks for a PMD table to share: in i_mmap it meets
// the misaligned VMA first, whose table page_table_shareable refuses (its pmd index differs),
// then a second process's aligned gigabyte, whose table it shares. The misaligned VMA's fault
// allocates no shared table (want_pmd_share is false) and its final zap does not widen its range
// (adjust_range_if_pmd_sharing_possible: no whole PUD inside it).
#include "model/hugetlb.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct hugetlb_misaligned_vs_share : scenario_base<hugetlb_misaligned_vs_share, 2> {
  static constexpr layout<2, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},              // libc r--p (free_pgtables batches it)
      {0x7f1000200000, 0x7f1040200000, 2, true, true},  // 1 GiB from 2 MiB past a PUD boundary
  }, {{"libc.so.6", 0}, {"/dev/hugepages/pool", 1}}};
  static constexpr layout_vma kAligned[1] = {{0x7f4000000000, 0x7f4040000000, 2, true, true}};
  static constexpr layout_vma kFaulting[1] = {{0x7f8000000000, 0x7f8040000000, 2, true, true}};
  static constexpr unsigned long kMisalignedFault = 0x7f1000400000, kSharingFault = 0x7f8000200000;

  teardown_world<rwsem_abstract> w;
  hugetlb_vma_lock misaligned_lock{"hugetlb vma_lock of the misaligned process"};
  hugetlb_vma_lock aligned_lock{"hugetlb vma_lock of the aligned process"};
  hugetlb_vma_lock faulting_lock{"hugetlb vma_lock of the faulting process"};
  mm_struct *misaligned, *aligned;
  mm_struct faulting_mm{"faulting process"};  // the world holds two mms
  mm_struct* faulting = &faulting_mm;

  hugetlb_misaligned_vs_share() {
    w.set_files(kLayout.files, 2);
    misaligned = w.add_mm("misaligned process", kLayout.vmas, 2);  // first in i_mmap
    aligned = w.add_mm("aligned process", kAligned, 1);
    w.add_vmas(faulting, kFaulting, 1, false);
    misaligned->vmas[1]->vm_private_data = &misaligned_lock;
    aligned->vmas[0]->vm_private_data = &aligned_lock;
    faulting->vmas[0]->vm_private_data = &faulting_lock;
  }

  void thread(unsigned i) {
    if (i == 0) {
      hugetlb_fault(misaligned->vmas[1], kMisalignedFault);
      exit_mmap(misaligned);
    } else {
      hugetlb_fault(faulting->vmas[0], kSharingFault);
    }
  }

  void after() {
    w.check_torn_down(misaligned);
    w.check_tables_kept(aligned->vmas[0]);
    w.check_tables_kept(faulting->vmas[0]);
    table_page* pud = faulting->pgtables.find(PMD_TABLE, kSharingFault);
    VM_CHECK(pud->ghost_state == PT_PRESENT && page_of(pud) == aligned->pgtables.find(PMD_TABLE, kAligned[0].start),
             "page tables", "the fault in %s did not share the aligned process's PMD table", faulting->name);
    w.check_trees_after(1u << misaligned->vmas[0]->id | 1u << misaligned->vmas[1]->id, 0);
    w.report_write_locks(0, 1);  // the hugetlb zap's i_mmap_lock_write, besides free_pgtables'
    if (g_hugetlb_pmd_shared) exploration::stat("reached_pmd_shared", 1);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(hugetlb_misaligned_vs_share, "hugetlb_misaligned_vs_share",
                            "abstract rw_semaphore: a fault and the exit of a process mapping 1 GiB of a hugetlbfs "
                            "file 2 MiB off a PUD boundary (no PMD table it may share) against a third process's "
                            "hugetlb fault that passes over it in i_mmap and shares an aligned process's table",
                            "full+reduce");
