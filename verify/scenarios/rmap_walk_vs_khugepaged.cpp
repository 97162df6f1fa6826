// An rmap walk (reclaim or migration of a page of the file) of the text's collapsed second
// 2 MiB while khugepaged retracts the PTE table that mapped it. Both hold i_mmap_rwsem for read
// only: what keeps the walker's read of the table safe is page_vma_mapped_walk's
// pte_offset_map_lock (an RCU read-side section, the table's lock, then the pmd rechecked)
// against retract_page_tables' pmd_lock, PTE lock and pte_free_defer.
#include "verify/scenarios/retract_world.hpp"

struct rmap_walk_vs_khugepaged : retract_against<rmap_walk_vs_khugepaged> {
  static void concurrently(address_space* mapping) { rmap_walk_file(mapping, kCollapsedPgoff); }
};

VMAVERIFY_SCENARIO(rmap_walk_vs_khugepaged, "rmap_walk_vs_khugepaged",
                   "abstract rw_semaphore: rmap_walk_file's page_vma_mapped_walk (pte_offset_map_lock) of a page "
                   "in the second 2 MiB of a text against khugepaged's retract_page_tables of that PTE table",
                   "full+reduce");
