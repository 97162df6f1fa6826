// khugepaged, having collapsed the second huge page of a 4 MiB PMD-aligned text, retracts the
// PTE table that mapped it in a process whose other thread pins a page there with GUP-fast.
// retract_page_tables clears the pmd under the pmd lock, which GUP-fast never takes: what keeps
// GUP-fast's read of the old table safe is pte_free_defer, which frees the table only after a
// grace period, and GUP-fast's recheck of the pmd, which makes it drop what it pinned there.
#include "verify/scenarios/teardown_world.hpp"

struct gup_fast_vs_khugepaged : scenario_base<gup_fast_vs_khugepaged, 2> {
  static constexpr layout_vma kText = {0x7fbf21c00000, 0x7fbf22000000, 1};  // app r-xp, 4 MiB, PMD-aligned
  static constexpr layout_file kFiles[1] = {{"app", 0}};
  static constexpr unsigned long kCollapsedPgoff = 0x200;  // the second 2 MiB of the file
  static constexpr unsigned long kPinned = 0x7fbf21e03000;  // a page of it

  teardown_world<rwsem_abstract> w;
  mm_struct process{"process running app"};
  vm_area_struct* text;

  gup_fast_vs_khugepaged() {
    w.set_files(kFiles, 1);
    w.rcu.readers = 1;
    text = w.new_vma(kText, &process);
    process.vmas[process.nr++] = text;
    process.mt_entries = process.nr;
    w.link_at_setup(text);
  }

  void thread(unsigned i) {
    if (i == 0) {
      retract_page_tables(&w.mappings[0], kCollapsedPgoff);
    } else {
      LOG_TASK("GUP-fast (gup_fast, a thread of the process)");
      gup_fast(&process.pgtables, kPinned);
    }
  }

  void after() {
    table_page* pte_table = process.pgtables.find(PTE_TABLE, kPinned);
    VM_CHECK(pte_table->ghost_state == PT_RETRACTED && pte_table->ghost_page_freed, "page-table leak",
             "the retracted PTE table %#lx was not freed", pte_table->base);
    w.report_lockless_window();
  }
};

VMAVERIFY_SCENARIO(gup_fast_vs_khugepaged, "gup_fast_vs_khugepaged",
                   "abstract rw_semaphore: khugepaged's retract_page_tables (pte_free_defer) of a PTE table that "
                   "GUP-fast is walking locklessly in the process mapping the text",
                   "full");
