// An exiting process with two libraries back to back: the batch must be processed when the
// next VMA belongs to another file, while an rmap walker walks the second file's mapping.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_two_files : exit_against<teardown_two_files> {
  static constexpr layout<4, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},  // libm r--p
      {0x7f0000010000, 0x7f0000020000, 1},  // libm r-xp
      {0x7f0000020000, 0x7f0000030000, 2},  // libz r--p
      {0x7f0000030000, 0x7f0000040000, 2},  // libz r-xp
  }, {{"libm.so.6", 0}, {"libz.so.1", 1}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[1], 0); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_two_files, "teardown_two_files",
                            "abstract rw_semaphore: exit of two libraries back to back [A][A][B][B] against "
                            "rmap_walk_file on B",
                            "full");
