// The kernel shim for the page-table freeing of mm/memory.c (free_pgd_range, free_p4d_range,
// free_pud_range, free_pmd_range, free_pte_range), when verify/kernel/kernel_extract.py takes them from
// the tree: the types and helpers they use, mapped onto the model's table pages
// (model/page_tables.hpp), x86-64 with 4-level paging (P4D folded into the PGD, as
// include/asm-generic/pgtable-nop4d.h and x86's runtime folding do without LA57).
//
// An entry pointer (pgd_t *, p4d_t *, pud_t *, pmd_t *) stands for the entry that maps one
// address at its level: it points into a per-level reserved range of address space that is
// never read or written (PROT_NONE: any load through it would crash the checker, not pass
// silently), entry i of the pmd range being the pmd entry that maps address i << PMD_SHIFT. So
// the kernel's own pointer arithmetic (pmd++) walks entries as it does in the kernel, and each
// helper turns the pointer back into (level, address) for the model's table of the mm whose
// tables free_pgd_range is freeing.
//
// Simplified, as model/page_tables.hpp says: the entry and the table page it points to share one
// state word, so pXd_clear is nothing and pXX_free_tlb clears and frees in one step; a patch that
// drops a pXd_clear (the entry left pointing to a freed table) is therefore not seen.
// pXX_free_tlb queues the page on the calling task's mmu_gather (model/mmu_gather.hpp), freed
// after a grace period at tlb_finish_mmu. No nr_ptes/nr_pmds/nr_puds counters (the end of run
// check is that every table page was freed), no TLB page size.
#pragma once
#include <sys/mman.h>
#include <cstdio>
#include <cstdlib>
#include "model/page_tables.hpp"

struct kshim_pgd_entry { char c; };  // never read: see above
struct kshim_pud_entry { char c; };
struct kshim_pmd_entry { char c; };
typedef kshim_pgd_entry pgd_t;
typedef kshim_pgd_entry p4d_t;  // folded
typedef kshim_pud_entry pud_t;
typedef kshim_pmd_entry pmd_t;
typedef pmd_t* pgtable_t;  // pmd_pgtable(*pmd): the pmd entry names the PTE table

// The reserved ranges: one byte per entry of a 48-bit address space.
constexpr unsigned long KSHIM_USER_BITS = 48;
template <class E, unsigned long Shift>
struct kshim_entry_range {
  static E* base() {
    static E* b = [] {
      void* p = mmap(nullptr, 1UL << (KSHIM_USER_BITS - Shift), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
      if (p == MAP_FAILED) {
        std::fprintf(stderr, "vmaverify kernel: cannot reserve address space for the page-table entries\n");
        std::abort();
      }
      return static_cast<E*>(p);
    }();
    return b;
  }
  static E* entry(unsigned long addr) { return base() + ((addr & ((1UL << KSHIM_USER_BITS) - 1)) >> Shift); }
  static unsigned long addr(const E* e) {
    long i = e - base();
    if (i < 0 || (unsigned long)i >= 1UL << (KSHIM_USER_BITS - Shift))
      vm_fail("bad pointer", RL_INFO, "a page-table entry pointer outside the mm's tables");
    return (unsigned long)i << Shift;
  }
};
using kshim_pgds = kshim_entry_range<pgd_t, PGDIR_SHIFT>;
using kshim_puds = kshim_entry_range<pud_t, PUD_SHIFT>;
using kshim_pmds = kshim_entry_range<pmd_t, PMD_SHIFT>;

// The mm whose tables the current task's free_pgd_range frees (thread-private: one per task).
inline mm_pgtables*& kshim_freeing_tables() {
  static mm_pgtables* pt[8];
  return pt[rl::thread_index() % 8];
}
inline mm_pgtables* kshim_tables() {
  mm_pgtables* pt = kshim_freeing_tables();
  if (!pt) vm_fail("bad pointer", RL_INFO, "a page-table helper outside free_pgd_range");
  return pt;
}

// include/linux/pgtable.h and x86's pgtable_64.h: offsets and range ends.
#define pgd_offset(mm, at) ((void)(mm), kshim_pgds::entry(at))
#define p4d_offset(pgd, at) ((void)(at), (p4d_t*)(pgd))
#define pud_offset(p4d, at) ((void)(p4d), kshim_puds::entry(at))
#define pmd_offset(pud, at) ((void)(pud), kshim_pmds::entry(at))
#define pgd_addr_end(at, end) pt_addr_end((at), (end), PGDIR_SIZE)
#define p4d_addr_end(at, end) ((void)(at), (end))
#define pud_addr_end(at, end) pt_addr_end((at), (end), PUD_SIZE)
#define pmd_addr_end(at, end) pt_addr_end((at), (end), PMD_SIZE)

// pXd_none_or_clear_bad: whether the entry points to no table (the model's tables are never bad).
// pgd: folded P4D, pgd_none is 0. p4d: the entry that points to the PUD table, and so on down.
#define pgd_none_or_clear_bad(pgd) ((void)(pgd), 0)
#define p4d_none_or_clear_bad(p4d) none_or_clear_bad(kshim_tables(), PUD_TABLE, kshim_pgds::addr(p4d))
#define pud_none_or_clear_bad(pud) none_or_clear_bad(kshim_tables(), PMD_TABLE, kshim_puds::addr(pud))
#define pmd_none_or_clear_bad(pmd) none_or_clear_bad(kshim_tables(), PTE_TABLE, kshim_pmds::addr(pmd))

// pXd_clear: nothing (one state word for entry and table page, above); pgd_clear and
// p4d_free_tlb with a folded P4D: nothing in the kernel either.
#define pgd_clear(pgd) ((void)(pgd))
#define p4d_clear(p4d) ((void)(p4d))
#define pud_clear(pud) ((void)(pud))
#define pmd_clear(pmd) ((void)(pmd))
#define pmd_pgtable(pmd) (&(pmd))  // never reads the entry: see above
