// Ten consecutive VMAs of one file: the batch fills at eight and must be processed before the
// ninth is added, while another process mmaps the same file.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_batch_overflow : scenario_base<teardown_batch_overflow, 2> {
  static constexpr unsigned long B = 0x7f0000000000, S = 0x10000;
  static constexpr layout<10, 1> kLayout = {{
      {B + 0 * S, B + 1 * S, 1}, {B + 1 * S, B + 2 * S, 1}, {B + 2 * S, B + 3 * S, 1}, {B + 3 * S, B + 4 * S, 1},
      {B + 4 * S, B + 5 * S, 1}, {B + 5 * S, B + 6 * S, 1}, {B + 6 * S, B + 7 * S, 1}, {B + 7 * S, B + 8 * S, 1},
      {B + 8 * S, B + 9 * S, 1}, {B + 9 * S, B + 10 * S, 1},
  }, {{"big.so", 0}}};
  static constexpr layout_vma kMapped = {0x7f1000000000, 0x7f1000010000, 1};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;
  mm_struct other{"mmapping process"};
  vm_area_struct* mapped;

  teardown_batch_overflow() {
    w.set_files(kLayout.files, 1);
    mm = w.add_mm("exiting process", kLayout.vmas, 10);
    mapped = w.new_vma(kMapped, &other);
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(mm);
    else
      vma_link_file(mapped);
  }

  void after() {
    w.check_torn_down(mm);
    w.check_trees(1u << mapped->id, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_batch_overflow, "teardown_batch_overflow",
                            "abstract rw_semaphore: exit of 10 consecutive VMAs of one file (the batch fills at 8) "
                            "against an mmap of the same file",
                            "full");
