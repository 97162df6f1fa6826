// A hugetlb mapping of its own 1 GiB region, the last VMA of an exiting process, walked by an
// rmap walk of the hugetlbfs file (memory-failure or migration of a huge page), which reads
// the huge PMD entries inside the VMA's PMD table. That PMD table is the VMA's alone, so
// hugetlb_free_pgd_range frees it (ceiling 0): unlink_file_vma must hide the VMA first.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_hugetlb_vs_walk : exit_against<teardown_hugetlb_vs_walk> {
  static constexpr layout<3, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},              // libc r--p
      {0x7f0000010000, 0x7f0000020000, 1},              // libc r-xp
      {0x7f4000000000, 0x7f4000400000, 2, true, true},  // hugetlbfs file, shared writable, two 2 MiB pages
  }, {{"libc.so.6", 0}, {"/dev/hugepages/buf", 1}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[1], 0x200); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_hugetlb_vs_walk, "teardown_hugetlb_vs_walk",
                            "abstract rw_semaphore: exit of [A][A] and a hugetlb VMA of file B alone in its "
                            "1 GiB region, against rmap_walk_file on the hugetlbfs file B",
                            "full");
