// A hugetlb VMA between two VMAs of a library: free_pgtables does not gather across it and
// unlinks it unbatched (the seed's v6.11 code), while an rmap walker walks the library.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_hugetlb : exit_against<teardown_hugetlb> {
  static constexpr layout<3, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},               // libc r--p
      {0x7f0000200000, 0x7f0000400000, 2, true, true},  // hugetlbfs file, shared writable, 2 MiB page
      {0x7f0000400000, 0x7f0000410000, 1},               // libc r-xp
  }, {{"libc.so.6", 0}, {"/dev/hugepages/buf", 1}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[0], 0); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_hugetlb, "teardown_hugetlb",
                            "abstract rw_semaphore: exit of [A][hugetlb B][A] against rmap_walk_file on A",
                            "full");
