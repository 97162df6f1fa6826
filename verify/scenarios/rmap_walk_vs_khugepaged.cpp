// An rmap walk (reclaim or migration of a page of the file) of the second 2 MiB of a text
// while khugepaged, having collapsed that range, retracts the PTE table that mapped it. Both
// hold i_mmap_rwsem for read only: what keeps the walker's read of the table safe is
// page_vma_mapped_walk's pte_offset_map_lock (an RCU read-side section, the table's lock,
// then the pmd rechecked) against retract_page_tables' pmd_lock, PTE lock and pte_free_defer.
#include "verify/scenarios/teardown_world.hpp"

struct rmap_walk_vs_khugepaged : scenario_base<rmap_walk_vs_khugepaged, 2> {
  static constexpr layout_vma kText = {0x7fbf21c00000, 0x7fbf22000000, 1};  // app r-xp, 4 MiB, PMD-aligned
  static constexpr layout_file kFiles[1] = {{"app", 0}};
  static constexpr unsigned long kCollapsedPgoff = 0x200;  // the second 2 MiB of the file
  static constexpr unsigned long kCollapsed = 0x7fbf21e00000;

  teardown_world<rwsem_abstract> w;
  mm_struct process{"process running app"};
  vm_area_struct* text;

  rmap_walk_vs_khugepaged() {
    w.set_files(kFiles, 1);
    w.rcu.readers = 1;  // the walker's pte_offset_map
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
      rmap_walk_file(&w.mappings[0], kCollapsedPgoff);
  }

  void after() {
    table_page* pte_table = process.pgtables.find(PTE_TABLE, kCollapsed);
    VM_CHECK(pte_table->ghost_state == PT_RETRACTED && pte_table->ghost_page_freed, "page-table leak",
             "the retracted PTE table %#lx was not freed", pte_table->base);
    if (g_pte_map_lock_retried) exploration::stat("reached_pmd_changed_under_pte_lock", 1);
  }
};

VMAVERIFY_SCENARIO(rmap_walk_vs_khugepaged, "rmap_walk_vs_khugepaged",
                   "abstract rw_semaphore: rmap_walk_file's page_vma_mapped_walk (pte_offset_map_lock) of a page "
                   "in the second 2 MiB of a text against khugepaged's retract_page_tables of that PTE table",
                   "full+reduce");
