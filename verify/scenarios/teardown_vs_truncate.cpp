// An exiting process whose layout has an anonymous VMA between two VMAs of the same file (the
// batch skips it without flushing) and a second file, while the file is truncated:
// unmap_mapping_range zaps every VMA it finds in i_mmap.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_vs_truncate : exit_against<teardown_vs_truncate> {
  static constexpr layout<4, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},  // data.db r--p
      {0x7f0000010000, 0x7f0000011000, 0},  // anonymous, between two VMAs of data.db
      {0x7f0000011000, 0x7f0000020000, 1},  // data.db rw-p
      {0x7f0000020000, 0x7f0000030000, 2},  // index.db r--p
  }, {{"data.db", 0}, {"index.db", 1}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { unmap_mapping_range(&w->mappings[0]); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_vs_truncate, "teardown_vs_truncate",
                            "abstract rw_semaphore: exit of [A][anon][A][B] against truncation of A "
                            "(unmap_mapping_range)",
                            "full");
