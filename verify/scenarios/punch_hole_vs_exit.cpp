// A hole punched in the middle of a file (fallocate PUNCH_HOLE: truncate_pagecache_range, so
// unmap_mapping_pages without even_cows) while a process mapping the file exits. Two other
// processes keep it mapped from non-zero offsets, each with pages on both sides of the hole's
// edges: a shared mapping from file page 0x100, and a private copy from page 0x200 that was
// written to inside the hole (an anonymous page the punch must keep) and read there (a file
// page it must zap). Each zap must cover exactly the hole's PTEs of its VMA.
#include "verify/scenarios/teardown_world.hpp"

struct punch_hole_vs_exit : exit_against<punch_hole_vs_exit> {
  static constexpr layout<1, 1> kLayout = {{
      {0x7f0000000000, 0x7f0000400000, 1},  // db, 4 MiB from offset 0
  }, {{"db", 0}}};
  static constexpr unsigned long kHoleFirst = 0x280, kHolePages = 0x80;  // file pages [0x280, 0x300)
  static constexpr layout_vma kShared = {0x7f5000000000, 0x7f5000400000, 1, true};
  static constexpr unsigned long kSharedPgoff = 0x100;
  static constexpr layout_vma kPrivate = {0x7f6000000000, 0x7f6000200000, 1, false, false, true};
  static constexpr unsigned long kPrivatePgoff = 0x200;

  mm_struct sharer{"process sharing db from page 0x100"}, writer{"writer of a private copy from page 0x200"};
  vm_area_struct *shared_vma, *private_vma;

  // The address where v maps file page `index`.
  static unsigned long addr_of(const vm_area_struct* v, unsigned long index) {
    return v->vm_start + ((index - v->vm_pgoff) << PAGE_SHIFT);
  }

  punch_hole_vs_exit() {
    shared_vma = w.new_vma(kShared, &sharer, kShared.start - (kSharedPgoff << PAGE_SHIFT));
    private_vma = w.new_vma(kPrivate, &writer, kPrivate.start - (kPrivatePgoff << PAGE_SHIFT));
    for (vm_area_struct* v : {shared_vma, private_vma}) w.link_at_setup(v);
    // The pages either side of both edges of the hole.
    for (unsigned long index : {kHoleFirst - 1, kHoleFirst, kHoleFirst + kHolePages - 1, kHoleFirst + kHolePages})
      w.map_at_setup(shared_vma, addr_of(shared_vma, index), page_kind::file);
    w.map_at_setup(private_vma, addr_of(private_vma, kHoleFirst), page_kind::anon);  // written: a private copy
    w.map_at_setup(private_vma, addr_of(private_vma, kHoleFirst + 0x40), page_kind::file);  // only read
  }

  static void concurrently(teardown_world<rwsem_abstract>* w) {
    unmap_mapping_pages(&w->mappings[0], kHoleFirst, kHolePages, false);
  }

  // At the end, no file page of the hole is mapped by a VMA that stays, and everything else is.
  void check_hole_unmapped(vm_area_struct* v, int pages_after) {
    int left = 0;
    for_each_mapped(v, v->vm_start, v->vm_end, [&](const mapped_page& m) {
      VM_CHECK(m.kind == page_kind::anon || m.index < kHoleFirst || m.index >= kHoleFirst + kHolePages,
               "zap range", "vma %d still maps file page %#lx of the hole at %#lx", v->id, m.index, m.addr);
      left++;
    });
    VM_CHECK(left == pages_after, "zap range", "vma %d maps %d pages after the punch, expected %d", v->id, left,
             pages_after);
  }

  void after() {
    w.check_torn_down(mm);
    check_hole_unmapped(shared_vma, 3);   // pages 0x100 (its first), 0x27f and 0x300
    check_hole_unmapped(private_vma, 2);  // its first page (written) and the one written in the hole
    w.check_trees_after(1u << mm->vmas[0]->id, 0);
    w.report_write_locks(0);
  }
};

VMAVERIFY_TEARDOWN_SCENARIO(punch_hole_vs_exit, "punch_hole_vs_exit",
                            "abstract rw_semaphore: exit of a 4 MiB mapping of a file against a hole punched in "
                            "the file's middle (unmap_mapping_pages without even_cows), the file also mapped from "
                            "offsets 0x100 (shared) and 0x200 (a private copy written inside the hole)",
                            "full");
