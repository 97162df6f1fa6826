#include "model/page_tables.hpp"

#include "model/trace_names.hpp"

void mm_pgtables::populate(unsigned long start, unsigned long end, bool hugetlb) {
  for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE}) {
    if (l == PTE_TABLE && hugetlb) continue;
    for (unsigned long a = pt_base(l, start); a < end; a += pt_span(l)) {
      if (find(l, a)) continue;
      if (n == MAX_TABLE_PAGES) {
        std::fprintf(stderr, "model: more than %d table pages in %s\n", MAX_TABLE_PAGES, owner);
        std::abort();
      }
      table_page* p = &pages[n++];
      p->level = l;
      p->base = a;
      p->state.store(PT_PRESENT, rl::memory_order_relaxed);
      p->ghost_state = PT_PRESENT;
      p->ptes.store(1, rl::memory_order_relaxed);
      // The word is the entry and the table it points to (page_tables.hpp): named by both, and
      // by the table the entry lives in (a PUD table's entry is in the pgd).
      if (l == PUD_TABLE)
        trace_name(&p->state, "pgd entry -> PUD table %#lx of %s", a, owner);
      else
        trace_name(&p->state, "%s entry -> %s table %#lx (in %s table %#lx) of %s", l == PMD_TABLE ? "pud" : "pmd",
                   pt_level_name(l), a, pt_level_name(pt_level(l - 1)), pt_base(pt_level(l - 1), a), owner);
      trace_name(&p->ptes, "PTEs in table %#lx of %s", a, owner);
      if (a + pt_span(l) == 0) break;  // the top of the address space
    }
  }
}

table_page* mm_pgtables::find(pt_level l, unsigned long addr) {
  for (int i = 0; i < n; i++)
    if (pages[i].level == l && pages[i].base == pt_base(l, addr)) return &pages[i];
  return nullptr;
}

int mm_pgtables::first_unfreed() const {
  for (int i = 0; i < n; i++)
    if (pages[i].ghost_state == PT_PRESENT) return i;
  return -1;
}

bool none_or_clear_bad(mm_pgtables* pt, pt_level l, unsigned long addr) {
  table_page* p = pt->find(l, addr);
  return !p || p->ghost_state != PT_PRESENT;
}

void free_table(mm_pgtables* pt, pt_level l, unsigned long addr) {
  table_page* p = pt->find(l, addr);
  VM_CHECK(p, "double free", "%s table %#lx of %s freed but never allocated", pt_level_name(l), pt_base(l, addr),
           pt->owner);
  // The exchange is the model's: the kernel clears with a plain store; the old value is what
  // tells a second free of the same table.
  int old = p->state.exchange(PT_FREED, rl::memory_order_relaxed);
  p->ghost_state = PT_FREED;
  VM_CHECK(old == PT_PRESENT, "double free", "%s table %#lx of %s freed twice (it was %s)", pt_level_name(l),
           p->base, pt->owner, old == PT_RETRACTED ? "retracted by khugepaged" : "freed by free_pgd_range");
}

// A walker reads inside `table`, having read the entry that points to it before: if
// free_pgd_range freed it in between, that read is a use-after-free. The check is on the ghost
// mirror, taken in the same step as the walker's next instrumented read (the entry below, or a
// PTE), so each level costs one scheduling point and the window is still explored.
static void check_deref(mm_pgtables* pt, table_page* table, const char* who, int vma_id) {
  VM_CHECK(table->ghost_state != PT_FREED, "use-after-free",
           "%s dereferenced %s table %#lx of %s (for vma %d) after free_pgd_range freed it", who,
           pt_level_name(table->level), table->base, pt->owner, vma_id);
}

// The descent: at each level, read the entry in the table above (pgd, PUD, PMD table).
// A table retracted by khugepaged is safe to look at: pte_free_defer frees it after an RCU
// grace period and pte_offset_map_lock rechecks the pmd; only free_pgd_range's free is not.
table_page* descend(mm_pgtables* pt, unsigned long addr, const char* who, int vma_id) {
  table_page* above = nullptr;
  for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE}) {
    table_page* p = pt->find(l, addr);
    // Read the entry (inside `above`): an instrumented read where a table can be there. A
    // hugetlb VMA's huge PMD entry has no PTE table below it, but is still read in its PMD table.
    int entry = p ? p->state.load(rl::memory_order_relaxed) : 0;
    if (above) check_deref(pt, above, who, vma_id);
    if (entry != PT_PRESENT) return nullptr;  // never allocated, or cleared: pXd_none
    above = p;
  }
  return above;
}

table_page* walk_to_pte_table(mm_pgtables* pt, unsigned long addr, const char* who, int vma_id) {
  table_page* p = descend(pt, addr, who, vma_id);
  if (!p) return nullptr;
  p->ptes.load(rl::memory_order_relaxed);  // ptep_get of the PTE that maps addr
  check_deref(pt, p, who, vma_id);
  return p;
}

void zap_pte_tables(mm_pgtables* pt, unsigned long start, unsigned long end, const char* who, int vma_id) {
  for (unsigned long a = start; a != end; a = pt_addr_end(a, end, PMD_SIZE)) {
    table_page* p = descend(pt, a, who, vma_id);
    if (!p) continue;
    p->ptes.store(0, rl::memory_order_relaxed);  // ptep_get_and_clear of each PTE
    check_deref(pt, p, who, vma_id);
  }
}
