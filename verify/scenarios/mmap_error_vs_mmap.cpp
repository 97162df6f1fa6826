// mmap_region of a shared writable file mapping fails after the driver's mmap filled page
// tables (the unmap_and_free_vma path), between two VMAs that share those tables, while another
// process mmaps the same file shared writable. The error path clears vm_file before
// unmap_region, so free_pgtables never touches i_mmap for a VMA that was never linked;
// i_mmap_writable, raised and dropped around both mmaps outside the lock, ends at 1.
#include "verify/scenarios/teardown_world.hpp"

struct mmap_error_vs_mmap : scenario_base<mmap_error_vs_mmap, 2> {
  static constexpr layout<4, 2> kLayout = {{
      {0x7fbf22471000, 0x7fbf22472000, 2},        // prev: locale file
      {0x7fbf22472000, 0x7fbf22474000, 1, true},  // the failing mapping of the device file, rw-s
      {0x7fbf22475000, 0x7fbf2249b000, 2},        // next: locale file
      {0x7f1000000000, 0x7f1000010000, 1, true},  // the other process's mapping of the device file, rw-s
  }, {{"/dev/fb0", 0}, {"locale-archive", 1}}};

  teardown_world<rwsem_abstract> w;
  mm_struct* mm;
  mm_struct other{"other process"};
  mm_struct detached{"the failed mmap's VMA"};
  vm_area_struct *prev, *failing, *next, *mapped;

  mmap_error_vs_mmap() {
    w.set_files(kLayout.files, 2);
    mm = w.add_mm("mmapping process", kLayout.vmas, 1);
    failing = w.new_vma(kLayout.vmas[1], mm);  // not linked: mmap_region links it only on success
    next = w.new_vma(kLayout.vmas[2], mm);
    w.link_at_setup(next);
    prev = mm->vmas[0];
    mapped = w.new_vma(kLayout.vmas[3], &other);
  }

  void thread(unsigned i) {
    if (i == 0)
      mmap_region(failing, prev, next, true, &detached);
    else
      mmap_region(mapped, nullptr, nullptr, false, nullptr);
  }

  void after() {
    w.check_tables_kept(prev);
    w.check_tables_kept(next);
    w.check_trees_after(0, 1u << mapped->id);
    address_space* fb = &w.mappings[0];
    VM_CHECK(fb->i_mmap_writable.load(rl::memory_order_relaxed) == 1, "counter",
             "i_mmap_writable of %s is %d after both mmaps, expected 1 (the other process's VMA)", fb->name,
             (int)fb->i_mmap_writable.load(rl::memory_order_relaxed));
  }
};

static ScenarioRegistrar registrar_mmap_error_vs_mmap(
    {"mmap_error_vs_mmap",
     "abstract rw_semaphore: mmap_region of a shared writable mapping fails after call_mmap (error path "
     "unmap_region between two VMAs sharing its PTE table) against another process's mmap of the same file",
     "full", &exploration::explore<mmap_error_vs_mmap>});
