// UFFDIO_COPY of a page into a private mapping of a shmem file, in the second 2 MiB that
// khugepaged has collapsed and whose PTE table it retracts (retract_page_tables). The copy
// makes the VMA a written private copy (anon_vma_prepare) and puts an anonymous page in the PTE
// under the PTE lock; it holds neither mmap_lock for write nor i_mmap_rwsem, so what keeps the
// page from being dropped with the table is khugepaged's anon_vma check repeated under the
// pmd_lock and the PTE lock. Either the copy comes first and khugepaged skips the VMA, or the
// table goes first and the copy finds the pmd none (a new table, or -EAGAIN).
#include <cerrno>
#include "model/userfaultfd.hpp"
#include "verify/scenarios/retract_world.hpp"

struct uffd_copy_vs_khugepaged : retract_against<uffd_copy_vs_khugepaged> {
  static constexpr unsigned long kCopied = kCollapsed + 0x5000;  // a none PTE in the collapsed range
  rl::atomic<bool> anon_vma;
  int copied = 1;

  uffd_copy_vs_khugepaged() {
    anon_vma.store(false, rl::memory_order_relaxed);
    trace_name(&anon_vma, "anon_vma of vma %d", text->id);
    text->anon_vma_live = &anon_vma;  // a MAP_PRIVATE mapping of the shmem file, registered with userfaultfd
  }

  void concurrently(address_space*) { copied = mfill_atomic_copy(text, kCopied); }

  void after() {
    table_page* pte_table = process.pgtables.find(PTE_TABLE, kCollapsed);
    const mapped_page* page = pte_table->ghost_state == PT_PRESENT ? pt_pte_at(pte_table, kCopied) : nullptr;
    // The copy either landed (in the old table, which khugepaged then kept, or in a new one) or
    // failed for the table going away under it (-EEXIST: the pmd none again after __pte_alloc;
    // -EAGAIN: at pte_offset_map_lock); a copied page that is gone was dropped.
    VM_CHECK(copied == -EAGAIN || copied == -EEXIST || (copied == 0 && page && page->kind == page_kind::anon),
             "page lost",
             "UFFDIO_COPY returned %d but PTE %#lx %s", copied, kCopied, page ? "maps a file page" : "is none");
    if (g_retract_skipped_on_recheck) exploration::stat("reached_retract_skipped_on_anon_vma_recheck", 1);
    if (pte_table->generation > 0 && copied == 0) exploration::stat("reached_copy_into_a_new_table", 1);
  }
};

VMAVERIFY_SCENARIO(uffd_copy_vs_khugepaged, "uffd_copy_vs_khugepaged",
                   "abstract rw_semaphore: UFFDIO_COPY into a private mapping of a shmem file (anon_vma_prepare, "
                   "an anonymous page under the PTE lock) against khugepaged's retract_page_tables of that PTE "
                   "table",
                   "full+reduce");
