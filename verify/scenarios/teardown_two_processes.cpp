// Two processes exit at once, both mapping the same library: their batches take the same
// i_mmap_rwsem for write and remove VMAs from the same tree.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_two_processes : scenario_base<teardown_two_processes, 2> {
  static constexpr layout<3, 1> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},  // libc r--p
      {0x7f0000010000, 0x7f0000020000, 1},  // libc r-xp
      {0x7f0000020000, 0x7f0000021000, 0},  // bss
  }, {{"libc.so.6", 0}}};
  static constexpr layout_vma kSecond[2] = {{0x7f1000000000, 0x7f1000010000, 1}, {0x7f1000010000, 0x7f1000020000, 1}};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm[2];

  teardown_two_processes() {
    w.set_files(kLayout.files, 1);
    mm[0] = w.add_mm("first exiting process", kLayout.vmas, 3);
    mm[1] = w.add_mm("second exiting process", kSecond, 2);
  }

  void thread(unsigned i) { exit_mmap(mm[i]); }

  void after() {
    w.check_torn_down(mm[0]);
    w.check_torn_down(mm[1]);
    w.check_trees(0, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_two_processes, "teardown_two_processes",
                            "abstract rw_semaphore: two processes exit at once, [A][A][anon] and [A][A] of the "
                            "same library",
                            "full");
