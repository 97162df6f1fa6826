// A hugetlb VMA between two VMAs of a library: free_pgtables does not gather across it and
// unlinks it unbatched (the seed's v6.11 code), while an rmap walker walks the library.
#include "verify/teardown_world.hpp"

struct teardown_hugetlb : scenario_base<teardown_hugetlb, 2> {
  static constexpr layout<3, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000010000, 1},               // libc r--p
      {0x7f0000200000, 0x7f0000400000, 2, true, true},  // hugetlbfs file, shared writable, 2 MiB page
      {0x7f0000400000, 0x7f0000410000, 1},               // libc r-xp
  }, {{"libc.so.6", 0}, {"/dev/hugepages/buf", 1}}};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;

  teardown_hugetlb() {
    w.set_files(kLayout.files, 2);
    mm = w.add_mm("exiting process", kLayout.vmas, 3);
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(mm);
    else
      rmap_walk_file(&w.mappings[0]);
  }

  void after() {
    w.check_torn_down(mm);
    w.check_trees(0, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_hugetlb, "teardown_hugetlb",
                            "abstract rw_semaphore: exit of [A][hugetlb B][A] against rmap_walk_file on A",
                            "full");
