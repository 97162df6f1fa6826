// An exiting process tears down libc (five VMAs of one file and its bss) and a shared writable
// mapping of a shm file, while another process mmaps libc and the shm file: i_mmap_writable of
// the shm mapping is raised by the mmap and dropped by the teardown at the same time.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_library_vs_mmap : scenario_base<teardown_library_vs_mmap, 2> {
  static constexpr layout<7, 2> kLayout = {{
      {0x7f0000000000, 0x7f0000028000, 1},        // libc r--p
      {0x7f0000028000, 0x7f00001bd000, 1},        // libc r-xp
      {0x7f00001bd000, 0x7f0000215000, 1},        // libc r--p
      {0x7f0000215000, 0x7f0000219000, 1},        // libc r--p (relro)
      {0x7f0000219000, 0x7f000021b000, 1},        // libc rw-p
      {0x7f000021b000, 0x7f0000228000, 0},        // bss, anonymous
      {0x7f0000400000, 0x7f0000500000, 2, true},  // /dev/shm/ring rw-s
  }, {{"libc.so.6", 0}, {"/dev/shm/ring", 1}}};
  // What the other process maps meanwhile: libc's text, and the shm file shared writable.
  static constexpr layout_vma kMapped[2] = {{0x7f1000028000, 0x7f10001bd000, 1},
                                            {0x7f1000400000, 0x7f1000500000, 2, true}};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;
  mm_struct other{"mmapping process"};
  vm_area_struct* mapped[2];

  teardown_library_vs_mmap() {
    w.set_files(kLayout.files, 2);
    mm = w.add_mm("exiting process", kLayout.vmas, 7);
    for (int i = 0; i < 2; i++) mapped[i] = w.new_vma(kMapped[i], &other);
  }

  void thread(unsigned i) {
    if (i == 0) {
      exit_mmap(mm);
    } else {
      vma_link_file(mapped[0]);
      vma_link_file(mapped[1]);
    }
  }

  void after() {
    w.check_torn_down(mm);
    w.check_trees(1u << mapped[0]->id, 1u << mapped[1]->id);
    VM_CHECK(w.mappings[1].i_mmap_writable($) == 1, "counter", "i_mmap_writable of B is %d, expected 1",
             (int)w.mappings[1].i_mmap_writable($));
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_library_vs_mmap, "teardown_library_vs_mmap",
                            "abstract rw_semaphore: exit of libc (5 VMAs + bss) and a shared writable shm mapping "
                            "against another process mmapping libc and the shm file",
                            "full");
