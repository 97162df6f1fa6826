// A user page fault (arch/x86/mm/fault.c do_user_addr_fault; mm/memory.c lock_mm_and_find_vma
// and handle_mm_fault; mm/mmap.c expand_downwards), reduced to what it does to the mm's VMAs
// and page tables: it finds the VMA under mmap_lock, grows a stack VMA down to the address
// (with mmap_lock held for write, since v6.5), then walks down from the pgd, allocating every
// table on the way whose entry is none (__pud_alloc, __pmd_alloc, __pte_alloc: the entry is
// rechecked and populated in one step), and writes the PTE (set_pte_at).
//
// Simplified: the page-table locks the allocation takes (mm->page_table_lock, pmd_lock) are
// left out: no other task of a scenario allocates tables, and free_pgd_range takes none, so
// they would order nothing; the per-VMA lock fault path (lock_vma_under_rcu) is not taken (it
// falls back to this one for a stack that must grow); the page itself and the PTE value are
// not modelled, only the write into the PTE table and the ghost page it maps (the file's page
// at that address, or an anonymous one in an anonymous VMA). A walker that still holds a table page
// that was freed and allocated again in the same slot is not told apart from the new one (no
// scenario has both).
#pragma once
#include "model/mm.hpp"

// stack_guard_gap (mm/mmap.c): 256 pages.
constexpr unsigned long STACK_GUARD_GAP = 256UL << PAGE_SHIFT;

// What a fault's handle_mm_fault (pud_alloc, pmd_alloc, pte_alloc, set_pte_at) and a driver's
// remap_pfn_range both do for one address of vma: allocate every table on the way whose entry
// is none, then write the PTE. Writing inside a table free_pgd_range cleared is reported.
void install_pte(vm_area_struct* vma, unsigned long addr, const char* who);
// The fault of a thread of mm at addr; returns whether it was handled (else SIGSEGV).
bool do_user_addr_fault(mm_struct* mm, unsigned long addr);
