// Two struct files of one inode (the library opened twice) share one mapping: the batch
// compares files, so it is processed between them (correct, only slower), while the file is
// truncated through the shared mapping.
#include "verify/teardown_world.hpp"

struct teardown_shared_inode : scenario_base<teardown_shared_inode, 2> {
  static constexpr layout<3, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},  // libfoo.so, first open
      {0x7f0000010000, 0x7f0000020000, 1},
      {0x7f0000020000, 0x7f0000030000, 2},  // libfoo.so, second open: same inode, same mapping
  }, {{"libfoo.so (open 1)", 0}, {"libfoo.so (open 2)", 0}}};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;

  teardown_shared_inode() {
    w.set_files(kLayout.files, 2);
    mm = w.add_mm("exiting process", kLayout.vmas, 3);
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(mm);
    else
      unmap_mapping_range(&w.mappings[0]);
  }

  void after() {
    w.check_torn_down(mm);
    w.check_trees(0, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_shared_inode, "teardown_shared_inode",
                            "abstract rw_semaphore: exit of [f1][f1][f2] where files f1 and f2 share mapping A, "
                            "against truncation of A",
                            "full");
