// An exiting process with two libraries back to back: the batch must be processed when the
// next VMA belongs to another file, while an rmap walker walks the second file's mapping.
#include "verify/teardown_world.hpp"

struct teardown_two_files : scenario_base<teardown_two_files, 2> {
  static constexpr layout<4, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},  // libm r--p
      {0x7f0000010000, 0x7f0000020000, 1},  // libm r-xp
      {0x7f0000020000, 0x7f0000030000, 2},  // libz r--p
      {0x7f0000030000, 0x7f0000040000, 2},  // libz r-xp
  }, {{"libm.so.6", 0}, {"libz.so.1", 1}}};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;

  teardown_two_files() {
    w.set_files(kLayout.files, 2);
    mm = w.add_mm("exiting process", kLayout.vmas, 4);
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(mm);
    else
      rmap_walk_file(&w.mappings[1]);
  }

  void after() {
    w.check_torn_down(mm);
    w.check_trees(0, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_two_files, "teardown_two_files",
                            "abstract rw_semaphore: exit of two libraries back to back [A][A][B][B] against "
                            "rmap_walk_file on B",
                            "full");
