// The page tables of one mm under the model checker, at table-page granularity: every PUD, PMD
// and PTE table page that some VMA of the layout needs, each with one instrumented state word.
// Neighbouring VMAs share table pages exactly as in the kernel (a PTE table maps 2 MiB, a PMD
// table 1 GiB, a PUD table 512 GiB), so a wrong floor, ceiling or gather bound frees a table a
// live VMA still uses, and a walker that reaches it through i_mmap reports a use-after-free.
//
// Simplified: the entry that points to a table and the table page itself share one state word.
// Clearing the entry and freeing the page are adjacent in free_p*_range with nothing a walker
// could synchronise on in between, so one step models both. A walker reads the word as the
// entry, and checks the table is not freed when it next reads inside it (the entry below, or
// a PTE), so the window between reading an entry and using the table is explored.
// The teardown reads its own entries (pXd_none_or_clear_bad) from a ghost mirror, not as a
// scheduling point: only khugepaged writes them too, and a retraction between that read and
// the free is still seen, as a double free, at the free's exchange or at khugepaged's.
#pragma once
#include "model/check.hpp"
#include "model/pgtable.hpp"

// The entry's state. Whether the table's page itself is freed is ghost_page_freed: a cleared
// table is freed after a grace period (model/mmu_gather.hpp, pte_free_defer).
enum table_state {
  PT_NONE = 0,       // never allocated: a slot a page fault may allocate a table into
  PT_PRESENT = 1,    // the entry points to the table
  PT_FREED = 2,      // free_p*_range cleared the entry and queued the page on the mmu_gather
  PT_RETRACTED = 3,  // khugepaged cleared the pmd and freed the table with pte_free_defer (RCU)
};

struct ptlock_tag;
struct address_space;

// What one PTE maps (ghost): the table records, page by page, what the scenario's set-up and the
// actors put in it, so that losing or misplacing a page is a violation and not only a word
// written. A file page is its page-cache index in its mapping (folio->index); an anonymous page
// (a private copy's written page, UFFDIO_COPY's) also carries the linear_page_index of its VMA
// at that address, which is what truncation compares with a hole.
enum class page_kind : unsigned char { file, anon };
struct mapped_page {
  unsigned long addr;
  page_kind kind;
  const address_space* mapping;  // file pages; for an anonymous page, its VMA's file (or none)
  unsigned long index;
};
// Enough for a page per VMA of the largest layout in one table, and the edges a scenario adds.
constexpr int MAX_MAPPED_PAGES = 24;

struct table_page {
  pt_level level;
  unsigned long base;
  rl::atomic<int> state;
  int ghost_state;  // mirror of state, written in the same step as every store to it
  // The page itself is freed (back to the page allocator): after the grace period that follows
  // clearing its entry. A lockless walker reading inside it then is a use-after-free.
  bool ghost_page_freed;
  // Which table page the slot holds: a fault allocating a table where one was freed gets a new
  // page in the same slot, so the gather frees the old page only if the slot still holds it.
  int generation;
  // The PTEs of a PTE table, as one word: zapping writes the table page (ptep_get_and_clear).
  // In a hugetlb VMA's PMD table, its huge PMD entries.
  rl::atomic<int> ptes;
  // What the PTEs of a PTE table map (ghost, written in the step of the store to `ptes` that
  // stands for the write): some pages by address, the ones a scenario can tell apart.
  mapped_page mapped[MAX_MAPPED_PAGES];
  int nr_mapped;
  // hugetlb PMD sharing (model/hugetlb.hpp), PMD tables only. The slot is the pud entry; the
  // page it points to is its own, or, once huge_pmd_share populated it with another process's
  // PMD table, that table's slot (ghost, written in the step that populates the entry).
  table_page* shared;
  // ptdesc_pmd_pts_count (include/linux/mm_types.h): how many processes map this PMD table
  // besides the one that allocated it, the kernel's own count (an atomic_t).
  rl::atomic<int> pmd_pts;
  // Ghost: how many pud entries point to this page now. Freeing a table another process still
  // points to is a use-after-free in that process.
  int ghost_users;
  // The table's split page-table lock (ptlock_ptr: a spinlock in the page's struct ptdesc; x86-64
  // splits both the PTE and the PMD locks), in the worlds that model page-table locks
  // (mm_pgtables::ptlocks); elsewhere a zap or a retraction is one step on the table.
  rl::generic_mutex<ptlock_tag> ptl;
  bool ptl_live;
};

// The table page an entry points to: its own slot, or the PMD table it shares.
inline table_page* page_of(table_page* entry) { return entry->shared ? entry->shared : entry; }
inline const table_page* page_of(const table_page* entry) { return entry->shared ? entry->shared : entry; }

constexpr int MAX_TABLE_PAGES = 12;

struct mm_pgtables {
  const char* owner = "";  // the process, for messages
  table_page pages[MAX_TABLE_PAGES];
  int n = 0;
  // The page-table locks are modelled (set before the tables are): zaps take the PTE lock
  // through pte_offset_map_lock, khugepaged the PMD and PTE locks.
  bool ptlocks = false;

  mm_pgtables() = default;
  ~mm_pgtables();

  // Set-up, outside the exploration: allocate every table page [start, end) needs. A hugetlb
  // VMA of 2 MiB pages is mapped by PMD entries and has no PTE tables.
  void populate(unsigned long start, unsigned long end, bool hugetlb);
  // Set-up: a slot for every table [start, end) needs that is not there yet, its entry none,
  // for a page fault to allocate (model/fault.hpp).
  void reserve(unsigned long start, unsigned long end, bool hugetlb = false);
  // The table page of this level covering addr, or null (the entry pointing to it is none).
  // The set of pages is fixed at set-up, so this lookup is plain.
  table_page* find(pt_level l, unsigned long addr);
  // find, for a table the caller knows has a slot (a model error otherwise).
  table_page* slot(pt_level l, unsigned long addr);
  // check_mm's "non-zero pgtables_bytes" test: every table page of a torn-down mm is freed.
  int first_unfreed() const;
  // A table whose entry was cleared but whose page was never freed (a gather never finished).
  int first_cleared_not_freed() const;
};

// set_pte_at of one page into a PTE table (ghost: its caller makes the instrumented write), and
// the page the PTE at an address maps (null when the PTE is none).
void pt_set_pte(table_page* pte_table, const mapped_page& page);
const mapped_page* pt_pte_at(const table_page* pte_table, unsigned long addr);

// pXd_none_or_clear_bad (include/linux/pgtable.h) and pXd_clear + pXX_free_tlb, for the
// generic free_pgd_range of model/pgtable.hpp. Freeing a table that is not PT_PRESENT at the
// moment of the free is a double free; reading an entry inside a table whose own entry is none
// (a descent that followed a none entry: the kernel's pmd_offset of a zero pud) is a bad pointer.
bool none_or_clear_bad(mm_pgtables* pt, pt_level l, unsigned long addr);
void free_table(mm_pgtables* pt, pt_level l, unsigned long addr);

// The descent alone, to the pmd entry (khugepaged's find_pmd_or_thp_or_none): the PTE table, or null.
table_page* descend(mm_pgtables* pt, unsigned long addr, const char* who, int vma_id);
// The descent to the entry pointing to a `last`-level table (hugetlb_walk: to the pud entry of
// a PMD table), with the same checks: that slot, or null where an entry on the way is none.
table_page* descend_to(mm_pgtables* pt, unsigned long addr, pt_level last, const char* who, int vma_id);
// __pud_alloc / __pmd_alloc / __pte_alloc (mm/memory.c), once the entry was read as `seen` (none,
// or cleared by free_pgd_range): a new table page, populated under the page-table lock if the
// entry still reads `seen` (the recheck and pXd_populate, one step); else the new page is freed.
// Returns whether this call populated the entry.
// With `shared` (huge_pmd_share), the entry is populated with that other process's PMD table
// instead, which gains a user (the caller took its pmd_pts count).
bool pt_populate_new(table_page* entry, int seen, table_page* shared = nullptr);
// A walker reads inside `table`, whose entry it read before: a table free_pgd_range freed in
// between (or, for a pud entry, the PMD table it shares) is a use-after-free.
void check_deref(mm_pgtables* pt, table_page* table, const char* who, int vma_id);
// page_vma_mapped_walk's descent (mm/page_vma_mapped.c): pgd -> PUD table -> PMD table -> PTE
// table for one address, then the PTE. Returns the PTE table, or null where an entry is none.
// Dereferencing a table that free_pgd_range has freed since its entry was read is a use-after-free.
table_page* walk_to_pte_table(mm_pgtables* pt, unsigned long addr, const char* who, int vma_id);
// gup_fast (mm/gup.c) for one address of the calling task's mm: with interrupts off, the
// lockless descent gup_fast_pgd_range .. gup_fast_pte_range, reading each entry once
// (READ_ONCE, pmdp_get_lockless), the PTE under pte_offset_map, then the recheck that the pmd
// did not change (a khugepaged collapse). Nothing but the deferred freeing of tables protects
// it: reading inside a table page that was freed is a use-after-free. Returns whether it pinned.
bool gup_fast(mm_pgtables* pt, unsigned long addr);
// Ghost, per iteration: a lockless walker read inside a table whose entry was already cleared
// and whose page was still there (the window the deferral protects was reached).
inline bool g_lockless_read_of_cleared_table = false;
// spin_lock / spin_unlock of a table page's own lock, pte_lockptr's (a PTE table) or
// pmd_lock's (a PMD table): taking a lock inside a freed table page is a use-after-free.
void ptlock_lock(mm_pgtables* pt, table_page* table, const char* who);
void ptlock_unlock(table_page* table);
// pte_offset_map_lock (mm/pgtable-generic.c, __pte_offset_map_lock, v6.5 on) of addr, whose
// PMD table `pmd_table` the caller reached: rcu_read_lock, read the pmd entry, take the PTE
// table's lock, then check the pmd still points to that table (pmd_same), else unlock and
// retry. Returns the PTE table locked, inside the RCU section, or null (pmd none).
table_page* pte_offset_map_lock(mm_pgtables* pt, table_page* pmd_table, unsigned long addr, const char* who,
                                int vma_id);
// pte_unmap_unlock (include/linux/mm.h)
void pte_unmap_unlock(table_page* pte_table);
// Ghost, per iteration: pte_offset_map_lock found the pmd changed once it held the lock.
inline bool g_pte_map_lock_retried = false;
// zap_pte_range (mm/memory.c): clear every PTE of [start, end), a write to each PTE table; with
// keep_anon (zap_details without even_cows: a hole punched in a file), anonymous pages stay.
void zap_pte_tables(mm_pgtables* pt, unsigned long start, unsigned long end, const char* who, int vma_id,
                    bool keep_anon = false);
