// Two struct files of one inode (the library opened twice) share one mapping: the batch
// compares files, so it is processed between them (correct, only slower), while the file is
// truncated through the shared mapping.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_shared_inode : exit_against<teardown_shared_inode> {
  static constexpr layout<3, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},  // libfoo.so, first open
      {0x7f0000010000, 0x7f0000020000, 1},
      {0x7f0000020000, 0x7f0000030000, 2},  // libfoo.so, second open: same inode, same mapping
  }, {{"libfoo.so (open 1)", 0}, {"libfoo.so (open 2)", 0}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { unmap_mapping_range(&w->mappings[0]); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_shared_inode, "teardown_shared_inode",
                            "abstract rw_semaphore: exit of [f1][f1][f2] where files f1 and f2 share mapping A, "
                            "against truncation of A",
                            "full");
