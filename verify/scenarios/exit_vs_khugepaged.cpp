// Exit of a process with a PMD-aligned 4 MiB text mapping while khugepaged, having collapsed the
// file's second huge page, retracts page tables twice (a second collapse pass over the same
// range). Four other processes map the text, one for each way retract_page_tables skips a VMA:
// a private copy that was written to (anon_vma), one mapped at an address that is not
// PMD-aligned for that offset, one too short to hold the whole huge page, and a plain one whose
// PTE table the first pass retracts, so that the second finds its pmd none. The exiting mm's
// VMA, while still linked, is skipped by hpage_collapse_test_exit.
#include "verify/scenarios/teardown_world.hpp"

struct exit_vs_khugepaged : exit_against<exit_vs_khugepaged> {
  static constexpr layout<1, 1> kLayout = {{
      {0x7fbf21c00000, 0x7fbf22000000, 1},  // app r-xp, 4 MiB, PMD-aligned (CONFIG_READ_ONLY_THP_FOR_FS)
  }, {{"app", 0}}};
  static constexpr layout_vma kOthers[4] = {
      {0x7f1000000000, 0x7f1000400000, 1, false, false, true},  // a private copy written to: anon_vma
      {0x7f2000001000, 0x7f2000401000, 1},                      // not PMD-aligned for the offset
      {0x7f3000000000, 0x7f3000201000, 1},                      // ends before the second huge page does
      {0x7f4000000000, 0x7f4000400000, 1},                      // retracted by the first pass
  };
  static constexpr unsigned long kCollapsedPgoff = 0x200;  // the second 2 MiB of the file

  mm_struct others[4] = {mm_struct("writer of a private copy"), mm_struct("misaligned mapper"),
                         mm_struct("short mapper"), mm_struct("other process")};
  vm_area_struct* other_vmas[4];

  exit_vs_khugepaged() {
    for (int i = 0; i < 4; i++) {
      other_vmas[i] = w.new_vma(kOthers[i], &others[i]);
      w.link_at_setup(other_vmas[i]);
    }
  }

  static void concurrently(teardown_world<rwsem_abstract>* w) {
    retract_page_tables(&w->mappings[0], kCollapsedPgoff);
    retract_page_tables(&w->mappings[0], kCollapsedPgoff);
  }

  void after() {
    w.check_torn_down(mm);
    for (int i = 0; i < 3; i++) w.check_tables_kept(other_vmas[i]);  // the skipped ones keep theirs
    w.check_trees_after(1u << mm->vmas[0]->id, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(exit_vs_khugepaged, "exit_vs_khugepaged",
                            "abstract rw_semaphore: exit of a 4 MiB PMD-aligned text mapping against two passes of "
                            "khugepaged's retract_page_tables on its file, also mapped by four other processes "
                            "(written private copy, misaligned, short, plain)",
                            "full");
