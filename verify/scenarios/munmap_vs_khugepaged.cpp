// munmap of a PMD-aligned 4 MiB text mapping while khugepaged, having collapsed the file's
// second huge page, retracts the PTE tables of every VMA mapping it (retract_page_tables). A
// second process maps the same text, so khugepaged has a table to retract whatever the order.
// free_pgtables and retract_page_tables never free the same table: teardown hides the VMA from
// i_mmap before freeing, and khugepaged only frees tables of VMAs it finds in i_mmap.
#include "verify/scenarios/teardown_world.hpp"

struct munmap_vs_khugepaged : munmap_against<munmap_vs_khugepaged> {
  static constexpr layout<3, 1> kLayout = {{
      {0x7fbf21a00000, 0x7fbf21a01000, 0},  // anonymous guard: prev
      {0x7fbf21c00000, 0x7fbf22000000, 1},  // app r-xp, 4 MiB, PMD-aligned (CONFIG_READ_ONLY_THP_FOR_FS)
      {0x7fbf22414000, 0x7fbf2246b000, 0},  // anonymous: next
  }, {{"app", 0}}};
  static constexpr int kFirst = 1, kCount = 1;
  static constexpr layout_vma kOther = {0x7f1000000000, 0x7f1000400000, 1};  // the same text in another process
  static constexpr unsigned long kCollapsedPgoff = 0x200;  // the second 2 MiB of the file

  mm_struct other{"other process"};
  vm_area_struct* other_text;

  munmap_vs_khugepaged() {
    other_text = w.new_vma(kOther, &other);
    w.link_at_setup(other_text);
  }

  static void concurrently(teardown_world<rwsem_abstract>* w) { retract_page_tables(&w->mappings[0], kCollapsedPgoff); }
};

VMAVERIFY_TEARDOWN_SCENARIO(munmap_vs_khugepaged, "munmap_vs_khugepaged",
                            "abstract rw_semaphore: munmap of a 4 MiB PMD-aligned text mapping against khugepaged's "
                            "retract_page_tables on its file, also mapped by another process",
                            "full");
