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
      trace_name(&p->state, "%s table %#lx of %s", pt_level_name(l), a, owner);
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

// One level of the descent: read the entry; if it points to a table, dereference it.
static table_page* descend(mm_pgtables* pt, pt_level l, unsigned long addr, const char* who, int vma_id) {
  table_page* p = pt->find(l, addr);
  if (!p || p->state.load(rl::memory_order_relaxed) != PT_PRESENT) return nullptr;  // pXd_none
  // Freed by khugepaged with pte_free_defer: the walker maps it under RCU and rechecks the pmd
  // (pte_offset_map_lock), so a retracted table is safe to look at; a freed one is not.
  VM_CHECK(p->state.load(rl::memory_order_relaxed) != PT_FREED, "use-after-free",
           "%s dereferenced %s table %#lx of %s (for vma %d) after free_pgd_range freed it", who, pt_level_name(l),
           p->base, pt->owner, vma_id);
  return p;
}

table_page* walk_to_pte_table(mm_pgtables* pt, unsigned long addr, const char* who, int vma_id) {
  for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE}) {
    table_page* p = descend(pt, l, addr, who, vma_id);
    if (!p || l == PTE_TABLE) return p;
  }
  return nullptr;
}

void zap_pte_tables(mm_pgtables* pt, unsigned long start, unsigned long end, const char* who, int vma_id) {
  for (unsigned long a = start; a != end; a = pt_addr_end(a, end, PMD_SIZE)) {
    table_page* p = walk_to_pte_table(pt, a, who, vma_id);
    if (p) p->ptes.store(0, rl::memory_order_relaxed);  // ptep_get_and_clear of each PTE
  }
}
