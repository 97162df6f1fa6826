// The common shape of the scenarios where fork fails part-way (kernel/fork.c, dup_mmap) while an
// rmap walker looks for a page of `sleep` in the VMA whose copy fails (Derived::kWalkedPgoff):
// the child's copies are linked into i_mmap and get their tables until copy_page_range of the
// VMA Derived::kFailAt fails after filling part of its tables; then the child's exit tears down
// what was copied, stopping at the XA_ZERO_ENTRY dup_mmap leaves where the next VMA would have
// gone (none after the last). Addresses from tests/data/sleep.maps.
#pragma once
#include "verify/scenarios/teardown_world.hpp"

template <class Derived>
struct fork_fails_against_rmap_walk : scenario_base<Derived, 2> {
  static constexpr layout<3, 1> kLayout = {{
      {0x5583e180f000, 0x5583e1811000, 1},  // sleep r--p
      {0x5583e1811000, 0x5583e1816000, 1},  // sleep r-xp
      {0x5583e1816000, 0x5583e1818000, 1},  // sleep r--p
  }, {{"/usr/bin/sleep", 0}}};
  static constexpr int kFirst = 0, kCount = Derived::kFailAt + 1;  // what the child's exit tears down

  teardown_world<rwsem_abstract> w;
  mm_struct* parent;
  mm_struct child{"child of the failing fork"};
  vm_area_struct* copies[3];

  fork_fails_against_rmap_walk() {
    w.set_files(kLayout.files, 1);
    parent = w.add_mm("parent process", kLayout.vmas, 3);
    for (int i = 0; i < 3; i++) copies[i] = w.new_vma(kLayout.vmas[i], &child, kLayout.vmas[0].start, false);
  }

  void thread(unsigned i) {
    if (i == 0)
      dup_mmap_fails(&child, parent, copies, Derived::kFailAt);
    else
      rmap_walk_file(&w.mappings[0], Derived::kWalkedPgoff);
  }

  void after() {
    w.check_trees_after(0, 0);  // the trees hold the parent's VMAs: every copy linked left again
    w.check_torn_down(&child);
    for (int i = 0; i < parent->nr; i++) w.check_tables_kept(parent->vmas[i]);
    w.report_write_locks(0, Derived::kFailAt + 1);  // the copies' vma_link_file: not the teardown's
    if (g_rmap_walker_met >> copies[Derived::kFailAt]->id & 1) exploration::stat("reached_walker_met_a_copy", 1);
  }
};
