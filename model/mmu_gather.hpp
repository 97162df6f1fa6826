// The mmu_gather's table batch (include/asm-generic/tlb.h, mm/mmu_gather.c) as the page-table
// teardown uses it: pte_free_tlb / pmd_free_tlb / pud_free_tlb clear the entry at once but only
// queue the table page; tlb_finish_mmu flushes the TLB and frees the queued pages after a grace
// period (x86-64 with CONFIG_PARAVIRT, as Debian's kernels are, selects
// MMU_GATHER_RCU_TABLE_FREE; on bare metal the TLB-flush IPI, which waits for interrupts-off
// sections, holds them off the same way). A lockless walker (GUP-fast) is safe only because of
// this deferral.
//
// Simplified: the batch never fills (a full batch is flushed early, the same deferral); the
// fallback when no batch page can be allocated (tlb_remove_table_one: an IPI, then the free) is
// not modelled; there is no TLB, so the flush itself is credited with nothing.
#pragma once
#include "model/page_tables.hpp"

struct mmu_gather {
  bool active = false;
  table_page* tables[MAX_TABLE_PAGES];  // tlb->batch: pages cleared from their entry, not yet freed
  int generations[MAX_TABLE_PAGES];     // the page each slot held when it was queued
  int nr = 0;
};

// tlb_gather_mmu (mm/mmu_gather.c): the calling task's gather for one teardown.
void tlb_gather_mmu();
// tlb_remove_table (mm/mmu_gather.c), where pXX_free_tlb ends: queue the page of a table whose
// entry was just cleared.
void tlb_remove_table(table_page* table);
// tlb_finish_mmu (mm/mmu_gather.c): tlb_flush_mmu, then tlb_table_flush: the queued pages are
// freed by tlb_remove_table_rcu after a grace period.
void tlb_finish_mmu();
// The gather of the calling task (thread-private), reset by each world before its threads start.
void mmu_gather_reset();
