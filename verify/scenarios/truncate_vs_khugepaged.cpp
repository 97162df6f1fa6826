// Truncation of a file (unmap_mapping_range) while khugepaged retracts the PTE table of the
// text's collapsed second 2 MiB. Both walk i_mmap under its read lock, so nothing keeps them
// apart but the page-table locks and RCU: the zap takes the PTE table's lock through
// pte_offset_map_lock, inside an RCU read-side section, and rechecks the pmd once it holds
// the lock; khugepaged clears the pmd under the pmd_lock and the PTE lock, and frees the table
// after a grace period (pte_free_defer).
#include "verify/scenarios/retract_world.hpp"

struct truncate_vs_khugepaged : retract_against<truncate_vs_khugepaged> {
  static void concurrently(address_space* mapping) { unmap_mapping_range(mapping); }
};

VMAVERIFY_SCENARIO(truncate_vs_khugepaged, "truncate_vs_khugepaged",
                   "abstract rw_semaphore: truncation's zap (pte_offset_map_lock) of a 4 MiB text against "
                   "khugepaged's retract_page_tables of its second PTE table, under the pmd_lock and PTE locks",
                   "full+reduce");
