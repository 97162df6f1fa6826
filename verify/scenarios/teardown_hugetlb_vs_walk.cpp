// The hugetlb VMA of teardown_hugetlb, walked this time: an rmap walk of the hugetlbfs file
// (memory-failure or migration of a huge page) goes down to the PMD that maps the 2 MiB page.
// The hugetlb VMA is unlinked unbatched and its tables freed by hugetlb_free_pgd_range, with
// its libc neighbours' groups on either side sharing its PMD and PUD tables.
#include "verify/teardown_world.hpp"

struct teardown_hugetlb_vs_walk : exit_against<teardown_hugetlb_vs_walk> {
  static constexpr layout<3, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},              // libc r--p
      {0x7f0000200000, 0x7f0000400000, 2, true, true},  // hugetlbfs file, shared writable, 2 MiB page
      {0x7f0000400000, 0x7f0000410000, 1},              // libc r-xp
  }, {{"libc.so.6", 0}, {"/dev/hugepages/buf", 1}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[1], 0); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_hugetlb_vs_walk, "teardown_hugetlb_vs_walk",
                            "abstract rw_semaphore: exit of [A][hugetlb B][A] against rmap_walk_file on the "
                            "hugetlbfs file B",
                            "full");
