// An exiting process tears down a shared library mapped as five consecutive VMAs of one file
// (r--p, r-xp, r--p, r--p relro, rw-p) and its anonymous bss, while an rmap walker (e.g.
// folio_referenced from reclaim) walks the library's i_mmap for a page of the text, which the
// text VMA (vm_pgoff 0x28) maps: the walker must look for it where it is mapped.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_vs_rmap_walk : exit_against<teardown_vs_rmap_walk> {
  static constexpr layout<6, 1> kLayout = {{
      {0x7f0000000000, 0x7f0000028000, 1},  // libc r--p
      {0x7f0000028000, 0x7f00001bd000, 1},  // libc r-xp
      {0x7f00001bd000, 0x7f0000215000, 1},  // libc r--p
      {0x7f0000215000, 0x7f0000219000, 1},  // libc r--p (relro)
      {0x7f0000219000, 0x7f000021b000, 1},  // libc rw-p
      {0x7f000021b000, 0x7f0000228000, 0},  // bss, anonymous
  }, {{"libc.so.6", 0}}};

  static constexpr unsigned long kWalkedPgoff = 0x30;  // a page of the text

  teardown_vs_rmap_walk() { w.map_at_setup(mm->vmas[1], kLayout.vmas[1].start + ((kWalkedPgoff - 0x28) << PAGE_SHIFT)); }

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[0], kWalkedPgoff); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_vs_rmap_walk, "teardown_vs_rmap_walk",
                            "abstract rw_semaphore: exit of a library layout (5 VMAs of libc + bss) against "
                            "rmap_walk_file on libc's mapping",
                            "full");
