#include "model/mmu_gather.hpp"
#include "model/call_chain.hpp"

#include "model/mutants.hpp"
#include "model/rcu.hpp"

static mmu_gather g_tlb[8];  // per thread: only the task tearing down touches its gather

void mmu_gather_reset() {
  for (mmu_gather& t : g_tlb) t = mmu_gather{};
}

void tlb_gather_mmu() { g_tlb[rl::thread_index()] = mmu_gather{true, {}, {}, 0}; }

void tlb_remove_table(table_page* table) {
  KERNEL_FRAME();
  mmu_gather& tlb = g_tlb[rl::thread_index()];
  if (!tlb.active) {  // a model bug: the kernel's pXX_free_tlb cannot be called without one
    std::fprintf(stderr, "model: a page table freed outside tlb_gather_mmu .. tlb_finish_mmu\n");
    std::abort();
  }
  if (mutant(Mutant::table_freed_before_flush)) {
    table->ghost_page_freed = true;
    return;
  }
  tlb.generations[tlb.nr] = table->generation;
  tlb.tables[tlb.nr++] = table;
}

void tlb_finish_mmu() {
  KERNEL_FRAME();
  mmu_gather& tlb = g_tlb[rl::thread_index()];
  if (tlb.nr) synchronize_rcu();  // call_rcu(&batch->rcu, tlb_remove_table_rcu)
  for (int i = 0; i < tlb.nr; i++)
    if (tlb.tables[i]->generation == tlb.generations[i]) tlb.tables[i]->ghost_page_freed = true;
  tlb = mmu_gather{};
}
