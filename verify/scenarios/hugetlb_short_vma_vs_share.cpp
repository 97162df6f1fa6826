// A process maps a library and 4 MiB of a hugetlbfs file from a PUD boundary (too short to
// share a PMD table: want_pmd_share needs the whole aligned gigabyte), takes a fault there, so
// allocating its own PMD table, and exits; meanwhile a thread of a third process faults at the
// start of its own aligned gigabyte of the file and looks in i_mmap for a table to share. It
// meets the short VMA, which page_table_shareable refuses (range_in_vma: the gigabyte is not
// inside it), and a second process's aligned gigabyte that has not faulted yet, whose pud entry
// is none (hugetlb_walk finds no table): so it allocates a PMD table of its own. Nobody may end
// up sharing a table that is not a whole gigabyte of a VMA.
#include "model/hugetlb.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct hugetlb_short_vma_vs_share : scenario_base<hugetlb_short_vma_vs_share, 2> {
  static constexpr layout<2, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},              // libc r--p (free_pgtables batches it)
      {0x7f1000000000, 0x7f1000400000, 2, true, true},  // 4 MiB from a PUD boundary
  }, {{"libc.so.6", 0}, {"/dev/hugepages/pool", 1}}};
  static constexpr layout_vma kUnfaulted[1] = {{0x7f4000000000, 0x7f4040000000, 2, true, true}};
  static constexpr layout_vma kFaulting[1] = {{0x7f8000000000, 0x7f8040000000, 2, true, true}};
  static constexpr unsigned long kShortFault = 0x7f1000000000, kSharingFault = 0x7f8000000000;

  teardown_world<rwsem_abstract> w;
  hugetlb_vma_lock short_lock{"hugetlb vma_lock of the short mapping's process"};
  hugetlb_vma_lock unfaulted_lock{"hugetlb vma_lock of the unfaulted process"};
  hugetlb_vma_lock faulting_lock{"hugetlb vma_lock of the faulting process"};
  mm_struct *short_mm, *unfaulted;
  mm_struct faulting_mm{"faulting process"};  // the world holds two mms
  mm_struct* faulting = &faulting_mm;

  hugetlb_short_vma_vs_share() {
    w.set_files(kLayout.files, 2);
    short_mm = w.add_mm("short mapping's process", kLayout.vmas, 2, false);  // first in i_mmap
    unfaulted = w.add_mm("unfaulted process", kUnfaulted, 1, false);
    w.add_vmas(faulting, kFaulting, 1, false);
    short_mm->vmas[1]->vm_private_data = &short_lock;
    unfaulted->vmas[0]->vm_private_data = &unfaulted_lock;
    faulting->vmas[0]->vm_private_data = &faulting_lock;
  }

  void thread(unsigned i) {
    if (i == 0) {
      hugetlb_fault(short_mm->vmas[1], kShortFault);
      exit_mmap(short_mm);
    } else {
      hugetlb_fault(faulting->vmas[0], kSharingFault);
    }
  }

  void after() {
    w.check_torn_down(short_mm);
    w.check_tables_kept(faulting->vmas[0]);
    table_page* pud = faulting->pgtables.find(PMD_TABLE, kSharingFault);
    VM_CHECK(pud->ghost_state == PT_PRESENT && page_of(pud) == pud && pud->pmd_pts.load(rl::memory_order_relaxed) == 0,
             "page tables", "the fault in %s shares a PMD table, though no VMA could give it a whole one",
             faulting->name);
    w.check_trees_after(1u << short_mm->vmas[0]->id | 1u << short_mm->vmas[1]->id, 0);
    w.report_write_locks(0, 1);  // the hugetlb zap's i_mmap_lock_write, besides free_pgtables'
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(hugetlb_short_vma_vs_share, "hugetlb_short_vma_vs_share",
                            "abstract rw_semaphore: a fault and the exit of a process mapping 4 MiB of a hugetlbfs "
                            "file from a PUD boundary (too short to share) against a third process's hugetlb "
                            "fault that finds no whole table to share in i_mmap",
                            "full+reduce");
