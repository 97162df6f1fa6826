// The common world of the scenarios where khugepaged, having collapsed the second 2 MiB of a
// PMD-aligned 4 MiB text, retracts the PTE table that mapped it (retract_page_tables) while
// another task, holding i_mmap_rwsem for read too, reaches that table through
// pte_offset_map_lock: page-table locks and RCU modelled. Derived::concurrently is that task,
// Derived::after (if it has one) what must hold at the end instead of the table retracted.
#pragma once
#include "verify/scenarios/teardown_world.hpp"

template <class Derived>
struct retract_against : scenario_base<Derived, 2> {
  static constexpr layout_vma kText = {0x7fbf21c00000, 0x7fbf22000000, 1};  // app r-xp, 4 MiB, PMD-aligned
  static constexpr layout_file kFiles[1] = {{"app", 0}};
  static constexpr unsigned long kCollapsedPgoff = 0x200;  // the second 2 MiB of the file
  static constexpr unsigned long kCollapsed = 0x7fbf21e00000;

  teardown_world<rwsem_abstract> w;
  mm_struct process{"process running app"};
  vm_area_struct* text;

  retract_against() {
    w.set_files(kFiles, 1);
    w.rcu.readers = 1;  // the other task's pte_offset_map
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
      static_cast<Derived*>(this)->concurrently(&w.mappings[0]);
  }

  void after() {
    table_page* pte_table = process.pgtables.find(PTE_TABLE, kCollapsed);
    VM_CHECK(pte_table->ghost_state == PT_RETRACTED && pte_table->ghost_page_freed, "page-table leak",
             "the retracted PTE table %#lx was not freed", pte_table->base);
    if (g_pte_map_lock_retried) exploration::stat("reached_pmd_changed_under_pte_lock", 1);
  }
};
