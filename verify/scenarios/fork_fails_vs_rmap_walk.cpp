// fork of a process running `sleep` whose dup_mmap fails in copy_page_range of the second VMA
// (the text), after filling part of its tables, while an rmap walker looks for a page of that
// text: it meets the parent's VMA and the child's copies as they are linked into i_mmap, their
// tables being built, and then torn down by the child's exit, which must stop at the
// XA_ZERO_ENTRY that dup_mmap left after the failed copy. Addresses from tests/data/sleep.maps.
#include "verify/scenarios/teardown_world.hpp"

struct fork_fails_vs_rmap_walk : scenario_base<fork_fails_vs_rmap_walk, 2> {
  static constexpr layout<3, 1> kLayout = {{
      {0x5583e180f000, 0x5583e1811000, 1},  // sleep r--p
      {0x5583e1811000, 0x5583e1816000, 1},  // sleep r-xp: its copy_page_range fails
      {0x5583e1816000, 0x5583e1818000, 1},  // sleep r--p: never copied, XA_ZERO_ENTRY here
  }, {{"/usr/bin/sleep", 0}}};
  static constexpr int kFailAt = 1;
  static constexpr int kFirst = 0, kCount = kFailAt + 1;  // what the child's exit tears down
  static constexpr unsigned long kTextPgoff = 2;            // a page of the text

  teardown_world<rwsem_abstract> w;
  mm_struct* parent;
  mm_struct child{"child of the failing fork"};
  vm_area_struct* copies[3];

  fork_fails_vs_rmap_walk() {
    w.set_files(kLayout.files, 1);
    parent = w.add_mm("parent process", kLayout.vmas, 3);
    for (int i = 0; i < 3; i++) copies[i] = w.new_vma(kLayout.vmas[i], &child, kLayout.vmas[0].start, false);
  }

  void thread(unsigned i) {
    if (i == 0)
      dup_mmap_fails(&child, parent, copies, kFailAt);
    else
      rmap_walk_file(&w.mappings[0], kTextPgoff);
  }

  void after() {
    w.check_trees_after(0, 0);  // the trees hold the parent's VMAs: every copy linked left again
    w.check_torn_down(&child);
    for (int i = 0; i < parent->nr; i++) w.check_tables_kept(parent->vmas[i]);
    w.report_write_locks(0, kFailAt + 1);  // the copies' vma_link_file: not the teardown's
    if (g_rmap_walker_met >> copies[kFailAt]->id & 1) exploration::stat("reached_walker_met_a_copy", 1);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(fork_fails_vs_rmap_walk, "fork_fails_vs_rmap_walk",
                            "abstract rw_semaphore: fork whose dup_mmap links and fills the child's copies and "
                            "fails in copy_page_range of the second, then the child's exit (to XA_ZERO_ENTRY), "
                            "against rmap_walk_file on the text",
                            "full");
