// An exiting process tears down a shared library mapped as five consecutive VMAs of one file
// (r--p, r-xp, r--p, r--p relro, rw-p) and its anonymous bss, while an rmap walker (e.g.
// folio_referenced from reclaim) walks the library's i_mmap and touches every VMA it finds.
#include "verify/teardown_world.hpp"

struct teardown_vs_rmap_walk : scenario_base<teardown_vs_rmap_walk, 2> {
  static constexpr layout<6, 1> kLayout = {{
      {0x7f0000000000, 0x7f0000028000, 1},  // libc r--p
      {0x7f0000028000, 0x7f00001bd000, 1},  // libc r-xp
      {0x7f00001bd000, 0x7f0000215000, 1},  // libc r--p
      {0x7f0000215000, 0x7f0000219000, 1},  // libc r--p (relro)
      {0x7f0000219000, 0x7f000021b000, 1},  // libc rw-p
      {0x7f000021b000, 0x7f0000228000, 0},  // bss, anonymous
  }, {{"libc.so.6", 0}}};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;

  teardown_vs_rmap_walk() {
    w.set_files(kLayout.files, 1);
    mm = w.add_mm("exiting process", kLayout.vmas, 6);
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

VMAVERIFY_TEARDOWN_SCENARIO(teardown_vs_rmap_walk, "teardown_vs_rmap_walk",
                            "abstract rw_semaphore: exit of a library layout (5 VMAs of libc + bss) against "
                            "rmap_walk_file on libc's mapping",
                            "full");
