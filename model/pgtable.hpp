// Page-table freeing: free_pgd_range and its free_p4d/pud/pmd/pte_range helpers (mm/memory.c),
// function by function, over x86-64's 4-level geometry (arch/x86/include/asm/pgtable_64_types.h).
// Generic over the table store, like model/vma_batch.hpp: the model checker's store
// (model/page_tables.hpp) instruments every entry read and every free; the plain one
// (model/mm_plain.hpp) serves the tests. A store PT provides
//   bool none_or_clear_bad(PT*, pt_level, unsigned long addr)  pXd_none_or_clear_bad on the entry
//                                                              that points to the table at addr;
//   void free_table(PT*, pt_level, unsigned long addr)         pXd_clear + pXX_free_tlb of it.
// The store's free_table decides when the page itself is freed (the model checker's: on the
// mmu_gather, model/mmu_gather.hpp). No TLB page-size bookkeeping, no nr_ptes/nr_pmds counters.
#pragma once
#include "model/mutants.hpp"
#include "model/call_chain.hpp"

// x86-64, 4-level paging: P4D is folded into the PGD (include/asm-generic/pgtable-nop4d.h).
constexpr unsigned long PAGE_SHIFT = 12, PMD_SHIFT = 21, PUD_SHIFT = 30, PGDIR_SHIFT = 39;
constexpr unsigned long PAGE_SIZE = 1UL << PAGE_SHIFT;
constexpr unsigned long PMD_SIZE = 1UL << PMD_SHIFT, PMD_MASK = ~(PMD_SIZE - 1);
constexpr unsigned long PUD_SIZE = 1UL << PUD_SHIFT, PUD_MASK = ~(PUD_SIZE - 1);
constexpr unsigned long PGDIR_SIZE = 1UL << PGDIR_SHIFT, PGDIR_MASK = ~(PGDIR_SIZE - 1);
constexpr unsigned long P4D_MASK = PGDIR_MASK;  // folded
constexpr unsigned long FIRST_USER_ADDRESS = 0;
constexpr unsigned long USER_PGTABLES_CEILING = 0;  // 0: the top of the address space

// The table pages a user address needs, named by what points to them: a pgd entry points to a
// PUD table (512 GiB), a pud entry to a PMD table (1 GiB), a pmd entry to a PTE table (2 MiB).
enum pt_level { PUD_TABLE, PMD_TABLE, PTE_TABLE };
constexpr unsigned long pt_span(pt_level l) { return l == PUD_TABLE ? PGDIR_SIZE : l == PMD_TABLE ? PUD_SIZE : PMD_SIZE; }
constexpr unsigned long pt_base(pt_level l, unsigned long addr) { return addr & ~(pt_span(l) - 1); }
inline const char* pt_level_name(pt_level l) { return l == PUD_TABLE ? "PUD" : l == PMD_TABLE ? "PMD" : "PTE"; }

// pgd_addr_end / pud_addr_end / pmd_addr_end (include/linux/pgtable.h); p4d_addr_end is folded.
inline unsigned long pt_addr_end(unsigned long addr, unsigned long end, unsigned long size) {
  unsigned long boundary = (addr + size) & ~(size - 1);
  return boundary - 1 < end - 1 ? boundary : end;
}

// free_pte_range (mm/memory.c)
template <class PT>
void free_pte_range(PT* pt, unsigned long addr) {
  KERNEL_FRAME();
  free_table(pt, PTE_TABLE, addr);
}

// free_pmd_range (mm/memory.c)
template <class PT>
void free_pmd_range(PT* pt, unsigned long addr, unsigned long end, unsigned long floor, unsigned long ceiling) {
  KERNEL_FRAME();
  unsigned long next, start = addr;
  do {
    next = pt_addr_end(addr, end, PMD_SIZE);
    if (none_or_clear_bad(pt, PTE_TABLE, addr)) continue;
    free_pte_range(pt, addr);
  } while (addr = next, addr != end);

  start &= PUD_MASK;
  if (start < floor) return;
  if (ceiling) {
    ceiling &= PUD_MASK;
    if (!ceiling) return;
  }
  if (mutant(Mutant::free_pmd_range_no_minus_one) ? end > ceiling : end - 1 > ceiling - 1) return;
  free_table(pt, PMD_TABLE, start);  // pud_clear + pmd_free_tlb
}

// free_pud_range (mm/memory.c)
template <class PT>
void free_pud_range(PT* pt, unsigned long addr, unsigned long end, unsigned long floor, unsigned long ceiling) {
  KERNEL_FRAME();
  unsigned long next, start = addr;
  do {
    next = pt_addr_end(addr, end, PUD_SIZE);
    if (!mutant(Mutant::free_pud_range_descends_none) && none_or_clear_bad(pt, PMD_TABLE, addr)) continue;
    free_pmd_range(pt, addr, next, floor, ceiling);
  } while (addr = next, addr != end);

  start &= P4D_MASK;
  if (start < floor) return;
  if (ceiling) {
    ceiling &= P4D_MASK;
    if (!ceiling) return;
  }
  if (end - 1 > ceiling - 1) return;
  free_table(pt, PUD_TABLE, start);  // p4d_clear + pud_free_tlb
}

// free_p4d_range (mm/memory.c). P4D is folded: its one entry is the pgd entry, pgd_clear and
// p4d_free_tlb are no-ops, so the PGDIR_MASK tests that follow the loop free nothing here.
template <class PT>
void free_p4d_range(PT* pt, unsigned long addr, unsigned long end, unsigned long floor, unsigned long ceiling) {
  KERNEL_FRAME();
  if (none_or_clear_bad(pt, PUD_TABLE, addr)) return;  // p4d_none_or_clear_bad
  free_pud_range(pt, addr, end, floor, ceiling);
}

// free_pgd_range (mm/memory.c): free the page tables of [addr, end) that no address in
// [floor, ceiling) outside it can still need; floor 0 is the bottom, ceiling 0 the top.
template <class PT>
void free_pgd_range(PT* pt, unsigned long addr, unsigned long end, unsigned long floor, unsigned long ceiling) {
  KERNEL_FRAME();
  unsigned long next;
  addr &= PMD_MASK;
  if (addr < floor) {
    addr += PMD_SIZE;
    if (!addr) return;
  }
  if (ceiling) {
    ceiling &= PMD_MASK;
    if (!ceiling) return;
  }
  if (end - 1 > ceiling - 1 && !mutant(Mutant::free_pgd_range_end_not_lowered)) end -= PMD_SIZE;
  if (addr > end - 1) return;
  do {
    next = pt_addr_end(addr, end, PGDIR_SIZE);
    free_p4d_range(pt, addr, next, floor, ceiling);
  } while (addr = next, addr != end);
}
