// Truncation of a file (unmap_mapping_range) while khugepaged, having collapsed the file's
// second huge page, retracts the PTE table that mapped it (retract_page_tables). Both walk
// i_mmap under its read lock, so nothing keeps them apart but the page-table locks and RCU:
// the zap takes the PTE table's lock through pte_offset_map_lock, inside an RCU read-side
// section, and rechecks the pmd once it holds the lock; khugepaged clears the pmd under the
// pmd_lock and the PTE lock, and frees the table after a grace period (pte_free_defer).
#include "verify/scenarios/teardown_world.hpp"

struct truncate_vs_khugepaged : scenario_base<truncate_vs_khugepaged, 2> {
  static constexpr layout_vma kText = {0x7fbf21c00000, 0x7fbf22000000, 1};  // app r-xp, 4 MiB, PMD-aligned
  static constexpr layout_file kFiles[1] = {{"app", 0}};
  static constexpr unsigned long kCollapsedPgoff = 0x200;  // the second 2 MiB of the file
  static constexpr unsigned long kCollapsed = 0x7fbf21e00000;

  teardown_world<rwsem_abstract> w;
  mm_struct process{"process running app"};
  vm_area_struct* text;

  truncate_vs_khugepaged() {
    w.set_files(kFiles, 1);
    w.rcu.readers = 1;  // the zap's pte_offset_map
    process.pgtables.ptlocks = true;
    text = w.new_vma(kText, &process);
    process.vmas[process.nr++] = text;
    process.mt_entries = process.nr;
    w.link_at_setup(text);
  }

  void thread(unsigned i) {
    if (i == 0)
      retract_page_tables(&w.mappings[0], kCollapsedPgoff);
    else
      unmap_mapping_range(&w.mappings[0]);
  }

  void after() {
    table_page* pte_table = process.pgtables.find(PTE_TABLE, kCollapsed);
    VM_CHECK(pte_table->ghost_state == PT_RETRACTED && pte_table->ghost_page_freed, "page-table leak",
             "the retracted PTE table %#lx was not freed", pte_table->base);
    if (g_pte_map_lock_retried) exploration::stat("reached_pmd_changed_under_pte_lock", 1);
  }
};

VMAVERIFY_SCENARIO(truncate_vs_khugepaged, "truncate_vs_khugepaged",
                   "abstract rw_semaphore: truncation's zap (pte_offset_map_lock) of a 4 MiB text against "
                   "khugepaged's retract_page_tables of its second PTE table, under the pmd_lock and PTE locks",
                   "full+reduce");
