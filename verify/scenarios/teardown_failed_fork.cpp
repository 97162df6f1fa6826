// Exit of a child whose dup_mmap failed (kernel/fork.c): its maple tree holds the two VMAs that
// were duplicated, then XA_ZERO_ENTRY where duplication stopped, then the parent's VMAs that
// were never copied. free_pgtables must stop at the marker, while an rmap walker walks the
// parent's VMA of another file, which stays mapped.
#include "verify/teardown_world.hpp"

struct teardown_failed_fork : scenario_base<teardown_failed_fork, 2> {
  static constexpr layout<2, 2> kLayout = {{
      {0x5583e180f000, 0x5583e1811000, 1},  // sleep r--p (tests/data/sleep.maps), duplicated
      {0x5583e1811000, 0x5583e1816000, 1},  // sleep r-xp, duplicated
  }, {{"/usr/bin/sleep", 0}, {"libc.so.6", 1}}};
  // The parent's VMA after the failure point, still in the child's tree after the marker.
  static constexpr layout_vma kParentLibc = {0x5583e1816000, 0x5583e1818000, 2};

  teardown_world<rwsem_abstract> w;
  mm_struct* child;
  mm_struct parent{"parent process"};
  vm_area_struct* parents_vma;

  teardown_failed_fork() {
    w.set_files(kLayout.files, 2);
    child = w.add_mm("child of a failed fork", kLayout.vmas, 2);
    parents_vma = w.new_vma(kParentLibc, &parent);
    w.link_at_setup(parents_vma);
    child->vmas[child->mt_entries++] = &g_xa_zero_entry;  // mas_store(&vmi.mas, XA_ZERO_ENTRY)
    child->vmas[child->mt_entries++] = parents_vma;
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(child);
    else
      rmap_walk_file(&w.mappings[1], 0);
  }

  void after() {
    w.check_torn_down(child);
    w.check_tables_kept(parents_vma);
    w.check_trees_after(1u << child->vmas[0]->id | 1u << child->vmas[1]->id, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_failed_fork, "teardown_failed_fork",
                            "abstract rw_semaphore: exit of a child whose dup_mmap failed ([A][A] XA_ZERO_ENTRY "
                            "[parent's B]) against rmap_walk_file on B",
                            "full");
