#include "model/page_tables.hpp"
#include "model/call_chain.hpp"

#include "model/lockdep.hpp"
#include "model/mmu_gather.hpp"
#include "model/mutants.hpp"
#include "model/rcu.hpp"
#include "model/trace_names.hpp"

// Set-up of every table [start, end) needs, in state `state` (PT_PRESENT or PT_NONE); a slot
// that is there already keeps its state.
static void add_slots(mm_pgtables* pt, unsigned long start, unsigned long end, bool hugetlb, int state) {
  for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE}) {
    if (l == PTE_TABLE && hugetlb) continue;
    for (unsigned long a = pt_base(l, start); a < end; a += pt_span(l)) {
      if (table_page* p = pt->find(l, a)) {
        if (state == PT_PRESENT && p->ghost_state == PT_NONE) {
          p->state.store(PT_PRESENT, rl::memory_order_relaxed);
          p->ghost_state = PT_PRESENT;
          p->ghost_users = 1;
        }
        continue;
      }
      if (pt->n == MAX_TABLE_PAGES) {
        std::fprintf(stderr, "model: more than %d table pages in %s\n", MAX_TABLE_PAGES, pt->owner);
        std::abort();
      }
      table_page* p = &pt->pages[pt->n++];
      const char* owner = pt->owner;
      p->level = l;
      p->base = a;
      p->state.store(state, rl::memory_order_relaxed);
      p->ghost_state = state;
      p->ghost_page_freed = false;
      p->generation = 0;
      p->ptes.store(1, rl::memory_order_relaxed);
      p->nr_mapped = 0;
      p->shared = nullptr;
      p->pmd_pts.store(0, rl::memory_order_relaxed);
      p->ghost_users = state == PT_PRESENT;
      p->ptl_live = pt->ptlocks;
      if (p->ptl_live) {
        p->ptl.init(false, false, false, false, RL_INFO);
        announce_sync_primitive(&p->ptl);
        trace_name(relacy_impl_address(&p->ptl), "%s lock of %s table %#lx of %s",
                   l == PTE_TABLE ? "PTE" : "pmd_lock: PMD", pt_level_name(l), a, owner);
      }
      // The word is the entry and the table it points to (page_tables.hpp): named by both, and
      // by the table the entry lives in (a PUD table's entry is in the pgd).
      if (l == PUD_TABLE)
        trace_name(&p->state, "pgd entry -> PUD table %#lx of %s", a, owner);
      else
        trace_name(&p->state, "%s entry -> %s table %#lx (in %s table %#lx) of %s", l == PMD_TABLE ? "pud" : "pmd",
                   pt_level_name(l), a, pt_level_name(pt_level(l - 1)), pt_base(pt_level(l - 1), a), owner);
      trace_name(&p->ptes, "PTEs in table %#lx of %s", a, owner);
      trace_name(&p->pmd_pts, "pt_share_count of PMD table %#lx of %s", a, owner);
      if (a + pt_span(l) == 0) break;  // the top of the address space
    }
  }
}

void mm_pgtables::populate(unsigned long start, unsigned long end, bool hugetlb) {
  add_slots(this, start, end, hugetlb, PT_PRESENT);
}

void mm_pgtables::reserve(unsigned long start, unsigned long end, bool hugetlb) {
  add_slots(this, start, end, hugetlb, PT_NONE);
}

mm_pgtables::~mm_pgtables() {
  for (int i = 0; i < n; i++)
    if (pages[i].ptl_live) pages[i].ptl.deinit(RL_INFO);
}

table_page* mm_pgtables::slot(pt_level l, unsigned long addr) {
  table_page* p = find(l, addr);
  if (!p) {
    std::fprintf(stderr, "model: no slot for the %s table of %#lx in %s (reserve it at set-up)\n", pt_level_name(l),
                 addr, owner);
    std::abort();
  }
  return p;
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

int mm_pgtables::first_cleared_not_freed() const {
  for (int i = 0; i < n; i++)
    if ((pages[i].ghost_state == PT_FREED || pages[i].ghost_state == PT_RETRACTED) && !page_of(&pages[i])->ghost_page_freed)
      return i;
  return -1;
}

bool none_or_clear_bad(mm_pgtables* pt, pt_level l, unsigned long addr) {
  // The entry lives in the table above (a PUD table's entry in the pgd, never freed): reading it
  // there is following that table's own entry, which must point to a table.
  if (l != PUD_TABLE) {
    table_page* above = pt->find(pt_level(l - 1), addr);
    VM_CHECK(above && above->ghost_state == PT_PRESENT, "bad pointer",
             "free_pgd_range read the %s entry of %#lx inside %s table %#lx of %s, whose own entry is %s: it "
             "descended through an entry that points to no table",
             l == PTE_TABLE ? "pmd" : "pud", addr, pt_level_name(pt_level(l - 1)), pt_base(pt_level(l - 1), addr),
             pt->owner, !above || above->ghost_state == PT_NONE ? "none" : "cleared");
  }
  table_page* p = pt->find(l, addr);
  return !p || p->ghost_state != PT_PRESENT;
}

void pt_set_pte(table_page* t, const mapped_page& page) {
  if (t->level != PTE_TABLE || page.addr < t->base || page.addr - t->base >= PMD_SIZE) {
    std::fprintf(stderr, "model: PTE of %#lx set in %s table %#lx\n", page.addr, pt_level_name(t->level), t->base);
    std::abort();
  }
  for (int i = 0; i < t->nr_mapped; i++)
    if (t->mapped[i].addr == page.addr) {
      t->mapped[i] = page;
      return;
    }
  if (t->nr_mapped == MAX_MAPPED_PAGES) {
    std::fprintf(stderr, "model: more than %d mapped pages in PTE table %#lx\n", MAX_MAPPED_PAGES, t->base);
    std::abort();
  }
  t->mapped[t->nr_mapped++] = page;
}

const mapped_page* pt_pte_at(const table_page* t, unsigned long addr) {
  for (int i = 0; i < t->nr_mapped; i++)
    if (t->mapped[i].addr == addr) return &t->mapped[i];
  return nullptr;
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
  table_page* page = page_of(p);
  VM_CHECK(page->ghost_users == 1, "use-after-free",
           "%s freed PMD table %#lx%s while %d other process(es) still map it (huge_pmd_unshare missed)", pt->owner,
           page->base, page == p ? "" : ", which it shares,", page->ghost_users - 1);
  page->ghost_users--;
  tlb_remove_table(page);  // pXX_free_tlb: the page goes on the gather
}

// A walker reads inside `table`, having read the entry that points to it before: if
// free_pgd_range freed it in between, that read is a use-after-free. The check is on the ghost
// mirror, taken in the same step as the walker's next instrumented read (the entry below, or a
// PTE), so each level costs one scheduling point and the window is still explored.
void check_deref(mm_pgtables* pt, table_page* table, const char* who, int vma_id) {
  VM_CHECK(table->ghost_state != PT_FREED && page_of(table)->ghost_state != PT_FREED, "use-after-free",
           "%s dereferenced %s table %#lx of %s (for vma %d) after free_pgd_range freed it", who,
           pt_level_name(table->level), table->base, pt->owner, vma_id);
}

// The descent: at each level, read the entry in the table above (pgd, PUD, PMD table).
// A table retracted by khugepaged is safe to look at: pte_free_defer frees it after an RCU
// grace period and pte_offset_map_lock rechecks the pmd; only free_pgd_range's free is not.
table_page* descend(mm_pgtables* pt, unsigned long addr, const char* who, int vma_id) {
  return descend_to(pt, addr, PTE_TABLE, who, vma_id);
}

table_page* descend_to(mm_pgtables* pt, unsigned long addr, pt_level last, const char* who, int vma_id) {
  table_page* above = nullptr;
  for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE}) {
    if (l > last) break;
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
  if (pt->ptlocks) {  // map_pte: pte_offset_map_lock
    table_page* pmd_table = descend_to(pt, addr, PMD_TABLE, who, vma_id);
    table_page* p = pmd_table ? pte_offset_map_lock(pt, pmd_table, addr, who, vma_id) : nullptr;
    if (!p) return nullptr;
    p->ptes.load(rl::memory_order_relaxed);  // ptep_get of the PTE that maps addr
    check_deref(pt, p, who, vma_id);
    pte_unmap_unlock(p);
    return p;
  }
  table_page* p = descend(pt, addr, who, vma_id);
  if (!p) return nullptr;
  p->ptes.load(rl::memory_order_relaxed);  // ptep_get of the PTE that maps addr
  check_deref(pt, p, who, vma_id);
  return p;
}

void ptlock_lock(mm_pgtables* pt, table_page* table, const char* who) {
  const char* lock_name = table->level == PTE_TABLE ? "PTE lock" : "pmd_lock";
  lockdep_acquire(lock_name, false);
  announce_blocking_lock();
  table->ptl.lock_exclusive(RL_INFO);
  VM_CHECK(!table->ghost_page_freed && table->ghost_state != PT_FREED, "use-after-free",
           "%s took the %s inside %s table %#lx of %s after the table was freed", who, lock_name,
           pt_level_name(table->level), table->base, pt->owner);
}

void ptlock_unlock(table_page* table) {
  table->ptl.unlock_exclusive(RL_INFO);
  lockdep_release(table->level == PTE_TABLE ? "PTE lock" : "pmd_lock");
}

table_page* pte_offset_map_lock(mm_pgtables* pt, table_page* pmd_table, unsigned long addr, const char* who,
                                int vma_id) {
  const bool rcu = !mutant(Mutant::pte_offset_map_without_rcu);
  for (;;) {
    if (rcu) rcu_read_lock();  // __pte_offset_map
    table_page* p = pt->find(PTE_TABLE, addr);
    int pmdval = p ? p->state.load(rl::memory_order_acquire) : PT_NONE;  // pmdp_get_lockless
    check_deref(pt, pmd_table, who, vma_id);
    if (pmdval != PT_PRESENT) {
      if (rcu) rcu_read_unlock();
      return nullptr;
    }
    int generation = p->generation;  // which page the pmd value points to
    ptlock_lock(pt, p, who);
    if (p->state.load(rl::memory_order_relaxed) == PT_PRESENT && p->generation == generation) return p;  // pmd_same
    g_pte_map_lock_retried = true;
    ptlock_unlock(p);
    if (rcu) rcu_read_unlock();
  }
}

void pte_unmap_unlock(table_page* pte_table) {
  KERNEL_FRAME();
  ptlock_unlock(pte_table);
  if (!mutant(Mutant::pte_offset_map_without_rcu)) rcu_read_unlock();
}

// zap_pte_range's writes into one PTE table: ptep_get_and_clear of each PTE of [start, end) in
// it (anonymous pages kept when `keep_anon`: zap_skip_check_mapping without even_cows).
static void zap_ptes_in(table_page* p, unsigned long start, unsigned long end, bool keep_anon) {
  p->ptes.store(0, rl::memory_order_relaxed);
  int kept = 0;
  for (int i = 0; i < p->nr_mapped; i++) {
    const mapped_page& m = p->mapped[i];
    if (m.addr < start || m.addr >= end || (keep_anon && m.kind == page_kind::anon)) p->mapped[kept++] = m;
  }
  p->nr_mapped = kept;
}

void zap_pte_tables(mm_pgtables* pt, unsigned long start, unsigned long end, const char* who, int vma_id,
                    bool keep_anon) {
  for (unsigned long a = start; a != end; a = pt_addr_end(a, end, PMD_SIZE)) {
    unsigned long next = pt_addr_end(a, end, PMD_SIZE);
    if (pt->ptlocks) {  // zap_pmd_range, then zap_pte_range under the PTE lock
      table_page* pmd_table = descend_to(pt, a, PMD_TABLE, who, vma_id);
      table_page* p = pmd_table ? pte_offset_map_lock(pt, pmd_table, a, who, vma_id) : nullptr;
      if (!p) continue;
      zap_ptes_in(p, a, next, keep_anon);
      check_deref(pt, p, who, vma_id);
      pte_unmap_unlock(p);
      continue;
    }
    table_page* p = descend(pt, a, who, vma_id);
    if (!p) continue;
    zap_ptes_in(p, a, next, keep_anon);
    check_deref(pt, p, who, vma_id);
  }
}

// A lockless walker reads inside `table` (an entry of it, or a PTE): only the deferral of the
// table's freeing keeps its page there, so a freed page is a use-after-free.
static void check_lockless_read(mm_pgtables* pt, table_page* table, const char* who) {
  if (table->ghost_state != PT_PRESENT && !table->ghost_page_freed) g_lockless_read_of_cleared_table = true;
  VM_CHECK(!table->ghost_page_freed, "use-after-free",
           "%s read inside %s table %#lx of %s after its page was freed (its entry was cleared %s)", who,
           pt_level_name(table->level), table->base, pt->owner,
           table->ghost_state == PT_RETRACTED ? "by khugepaged" : "by free_pgd_range");
}

bool gup_fast(mm_pgtables* pt, unsigned long addr) {
  KERNEL_FRAME();
  const char* who = "GUP-fast";
  const bool irqs_off = !mutant(Mutant::gup_fast_irqs_enabled);
  if (irqs_off) rcu_read_lock();  // local_irq_save
  bool pinned = false;
  table_page* above = nullptr;  // the table the next entry is read in (the pgd is never freed)
  for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE}) {
    table_page* p = pt->find(l, addr);
    int entry = p ? p->state.load(rl::memory_order_relaxed) : 0;  // READ_ONCE(*pXdp), pmdp_get_lockless
    if (above) check_lockless_read(pt, above, who);
    if (entry != PT_PRESENT) goto out;  // pXd_none: fall back to the slow path, under mmap_lock
    above = p;
  }
  rcu_read_lock();  // gup_fast_pte_range's pte_offset_map(&pmd, addr), on the pmd value read above
  // gup_fast_pte_range: ptep_get_lockless, try_grab_folio_fast, then the recheck that the pmd
  // still points to the same table (pmd_val(pmd) != pmd_val(*pmdp): drop the folio, fall back).
  above->ptes.load(rl::memory_order_relaxed);
  check_lockless_read(pt, above, who);
  pinned = above->state.load(rl::memory_order_relaxed) == PT_PRESENT;
  check_lockless_read(pt, pt->find(PMD_TABLE, addr), who);
  rcu_read_unlock();  // pte_unmap
out:
  if (irqs_off) rcu_read_unlock();  // local_irq_restore
  return pinned;
}

bool pt_populate_new(table_page* p, int seen, table_page* shared) {
  // A slot holds one page at a time: its old page must be gone before it holds a new one.
  if (!shared && p->ghost_state == PT_NONE && p->ghost_users > 0) {
    std::fprintf(stderr, "model: %s table %#lx allocated again while its old page is still shared\n",
                 pt_level_name(p->level), p->base);
    std::abort();
  }
  // Under the lock of the table the entry lives in (pmd_lock for a pmd entry, pud_lock, which
  // is mm->page_table_lock, above): its critical section is this one step, so only lockdep
  // sees the lock, for the order it is taken in.
  const char* lock = p->level == PTE_TABLE ? "pmd_lock" : "page_table_lock";
  lockdep_acquire(lock, false);
  bool populated = p->state.compare_exchange_strong(seen, PT_PRESENT, rl::memory_order_release);
  lockdep_release(lock);
  if (!populated) return false;
  p->ghost_state = PT_PRESENT;
  p->shared = shared;
  if (shared) {
    shared->ghost_users++;
    return true;
  }
  p->ghost_page_freed = false;
  p->generation++;
  p->ghost_users = 1;
  p->nr_mapped = 0;
  return true;
}
