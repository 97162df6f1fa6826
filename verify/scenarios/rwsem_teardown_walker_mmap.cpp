// The faithful rw_semaphore under the batch, with all three kinds of i_mmap_rwsem user at once:
// an exit tears down [A][A] (one batch, one write lock), an rmap walk on A reads, and another
// process mmaps A (mmap_region, whose vma_link_file is a second writer). Three tasks, so that the teardown's writer
// can queue behind the walker while the mmap writer queues behind it (rwsem_mark_wake wakes a
// writer after a reader, and the unlock of one writer hands the lock to the next).
#include "verify/scenarios/teardown_world.hpp"

struct rwsem_teardown_walker_mmap : scenario_base<rwsem_teardown_walker_mmap, 3> {
  static constexpr layout<2, 1> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},  // libc r--p
      {0x7f0000010000, 0x7f0000020000, 1},  // libc r-xp
  }, {{"libc.so.6", 0}}};
  static constexpr layout_vma kMapped = {0x7f1000010000, 0x7f1000020000, 1};  // the other process's libc text

  teardown_world<rwsem_count_model> w;
  mm_struct* mm;
  mm_struct other{"mmapping process"};
  vm_area_struct* mapped;

  rwsem_teardown_walker_mmap() {
    w.set_files(kLayout.files, 1);
    mm = w.add_mm("exiting process", kLayout.vmas, 2);
    mapped = w.new_vma(kMapped, &other);
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(mm);
    else if (i == 1)
      rmap_walk_file(&w.mappings[0], 0x10);
    else
      mmap_region(mapped, nullptr, nullptr, false, nullptr);
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    w.check_torn_down(mm);
    w.check_trees(1u << mapped->id, 0);
    w.report_write_locks(0);
  }
};

// Context-bounded: three lock users of the faithful semaphore and the teardown's steps.
VMAVERIFY_TEARDOWN_SCENARIO_BASELINE(rwsem_teardown_walker_mmap, "rwsem_teardown_walker_mmap",
                                     "faithful rw_semaphore under the batch: exit of [A][A] against rmap_walk_file "
                                     "on A and another process's mmap of A, three tasks",
                                     "bound:3", false);
