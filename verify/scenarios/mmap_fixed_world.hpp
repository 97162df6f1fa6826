// The common shape of the MAP_FIXED scenarios: a process maps a new file with MAP_FIXED over a
// 2 MiB mapping of another file (__mmap_region, the fourth caller of free_pgtables), between
// an anonymous prev and next, while the old file is truncated. The old VMA leaves i_mmap and
// its page tables are freed while it is still in the mm's tree; the new VMA's driver then fills
// the same range's tables again (remap_pfn_range). Constructed layout, PMD-aligned so that the
// PTE table freed and the one filled again are the same slot.
#pragma once
#include "verify/scenarios/teardown_world.hpp"

template <class Derived>
struct mmap_fixed_against_truncate : scenario_base<Derived, 2> {
  static constexpr layout<3, 2> kLayout = {{
      {0x7f5a00000000, 0x7f5a00021000, 0},  // anonymous: prev
      {0x7f5a00200000, 0x7f5a00400000, 1},  // the old mapping, 2 MiB of the old file
      {0x7f5a00600000, 0x7f5a00621000, 0},  // anonymous: next
  }, {{"old file", 0}, {"new file", 1}}};
  static constexpr int kFirst = 1, kCount = 1;
  static constexpr layout_vma kNew = {0x7f5a00200000, 0x7f5a00400000, 2};  // MAP_FIXED, the new file

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;
  mm_struct detached{"the VMAs MAP_FIXED replaces"};
  mm_struct undo{"the failed new VMA"};
  vm_area_struct* old_vma;
  vm_area_struct* new_vma;

  mmap_fixed_against_truncate() {
    w.set_files(kLayout.files, 2);
    mm = w.add_mm("mapping process", kLayout.vmas, 3);
    old_vma = mm->vmas[kFirst];
    new_vma = w.new_vma(kNew, mm);  // its range's tables are the old VMA's: nothing new at set-up
  }

  void thread(unsigned i) {
    if (i == 0)
      __mmap_region(mm, new_vma, kFirst, kCount, Derived::kMmapFileFails, &detached, &undo);
    else
      unmap_mapping_range(&w.mappings[0]);  // truncation of the old file
  }

  void after() {
    w.check_removed(&detached, mm);
    w.check_removed(mm, mm, false);  // what the tree holds now: never removed, tables kept
    w.check_gathered_tables_freed(mm);
    w.check_trees_after(1u << old_vma->id, Derived::kMmapFileFails ? 0 : 1u << new_vma->id);
    w.check_no_orphan_tables(mm);
    w.report_write_locks(0, Derived::kMmapFileFails ? 0 : 1);  // vma_link_file of the new VMA: not the teardown's
    // The driver filled a table in a slot the old VMA's table was freed from (a stat that
    // stays 1 once some run reached it).
    if (mm->pgtables.find(PTE_TABLE, kNew.start)->generation > 0) exploration::stat("reached_table_allocated_again", 1);
  }
};
