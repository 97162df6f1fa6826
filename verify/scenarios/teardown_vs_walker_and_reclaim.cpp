// Exit of a library's two first VMAs while two rmap walkers of its file run side by side: a
// blocking one (folio_referenced from the LRU scan) and reclaim's try_lock one, which gives up
// when i_mmap_trylock_read fails. Three tasks; the addresses are libc's in tests/data/sleep.maps.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_vs_walker_and_reclaim : scenario_base<teardown_vs_walker_and_reclaim, 3> {
  static constexpr layout<2, 1> kLayout = {{
      {0x7fbf22475000, 0x7fbf2249b000, 1},  // libc r--p
      {0x7fbf2249b000, 0x7fbf225f1000, 1},  // libc r-xp
  }, {{"libc.so.6", 0}}};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;

  teardown_vs_walker_and_reclaim() {
    w.set_files(kLayout.files, 1);
    mm = w.add_mm("exiting process", kLayout.vmas, 2);
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(mm);
    else
      rmap_walk_file(&w.mappings[0], 0x30, /*try_lock=*/i == 2);
  }

  void after() {
    w.check_torn_down(mm);
    w.check_trees(0, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_vs_walker_and_reclaim, "teardown_vs_walker_and_reclaim",
                            "abstract rw_semaphore: exit of [A][A] (libc) against a blocking rmap_walk_file and "
                            "reclaim's try_lock rmap walk on A, three tasks",
                            "full");
