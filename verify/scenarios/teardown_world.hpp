// The common world of the teardown scenarios: mappings A and B with their i_mmap_rwsem,
// files, and processes whose VMAs come from a static layout table. A scenario file declares
// its layout and its threads; this builds the kernel objects from it.
#pragma once
#include <iterator>
#include <map>
#include <string>
#include "model/actors.hpp"
#include "model/mm.hpp"
#include "model/mm_plain.hpp"
#include "model/hugetlb.hpp"
#include "model/mmu_gather.hpp"
#include "model/rcu.hpp"
#include "model/rwsem_abstract.hpp"
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

constexpr unsigned long KiB4 = 0x1000;

// One VMA of a layout: [start, end), the file it maps (0 = anonymous, else 1-based index in
// the scenario's file table), and its flags. Its file offset is the distance from the first
// VMA of the same file in the same layout, as ld.so maps a library's segments.
struct layout_vma {
  unsigned long start, end;
  int file;
  bool shared_write = false;
  bool hugetlb = false;
  bool anon_vma = false;  // a private file mapping that was written to
  // Only its first and last page were ever touched: the page tables of the stretch between were
  // never allocated (entries none), as the kernel allocates tables lazily, on the first fault.
  bool sparse = false;
};
// One open file: its name and which mapping (0 = A, 1 = B) its inode's page cache is.
struct layout_file {
  const char* name;
  int mapping;
};
template <size_t NV, size_t NF>
struct layout {
  layout_vma vmas[NV];
  layout_file files[NF];
};

// Lock round trips of a layout's teardown, batched and unbatched, by running the very same
// free_pgtables over plain objects (model/mm_plain.hpp). Called outside the exploration.
void layout_figures(const layout_vma* vmas, int nv, const layout_file* files, int nf,
                    std::map<std::string, long>* out);

template <class Sem>
struct teardown_world {
  Sem sem_a{"i_mmap_rwsem of A"}, sem_b{"i_mmap_rwsem of B"};
  address_space mappings[2] = {{"A", 1, &sem_a}, {"B", 2, &sem_b}};
  file files[4];
  vm_area_struct vma_pool[MAX_VMAS];
  int nvma = 0;
  mm_struct mms[2];
  int nmm = 0;
  unsigned linked_at_setup = 0;  // VMA ids in some i_mmap before the threads start
  rcu_domain rcu;                 // its readers: a scenario with a lockless walker declares them

  teardown_world() {
    mmu_gather_reset();
    hugetlb_reset_ghosts();
    g_lockless_read_of_cleared_table = false;
    g_pte_map_lock_retried = false;
    g_retract_skipped_on_recheck = false;
    g_rmap_walker_met = 0;
    for (auto& v : g_vma_by_id) v = nullptr;
    for (auto& n : g_write_locks_by_thread) n = 0;
    for (auto& m : g_exiting_mm) m = nullptr;
  }

  void set_files(const layout_file* f, int n) {
    for (int i = 0; i < n; i++) files[i] = file{f[i].name, &mappings[f[i].mapping], i + 1};
  }

  // A VMA of `owner` whose page tables exist (populated at set-up, as faults or the driver did),
  // or, with tables_exist false, whose tables are still to be allocated (slots reserved).
  vm_area_struct* new_vma(const layout_vma& l, mm_struct* owner, unsigned long file_base = 0,
                          bool tables_exist = true) {
    vm_area_struct* v = &vma_pool[nvma];
    v->id = nvma++;
    v->vm_start = l.start;
    v->vm_end = l.end;
    v->vm_pgoff = l.file ? (l.start - (file_base ? file_base : l.start)) >> PAGE_SHIFT : 0;
    v->vm_file = l.file ? &files[l.file - 1] : nullptr;
    v->shared_maywrite = l.shared_write;
    v->hugetlb = l.hugetlb;
    v->anon_vma = l.anon_vma;
    v->vm_mm = owner;
    g_vma_by_id[v->id] = v;
    owner->pgtables.owner = owner->name;
    if (!tables_exist) {
      owner->pgtables.reserve(l.start, l.end, l.hugetlb);
    } else if (l.sparse) {
      owner->pgtables.populate(l.start, l.start + PAGE_SIZE, l.hugetlb);
      owner->pgtables.populate(l.end - PAGE_SIZE, l.end, l.hugetlb);
      map_at_setup(v, l.start);
      map_at_setup(v, l.end - PAGE_SIZE);
    } else {
      owner->pgtables.populate(l.start, l.end, l.hugetlb);
      // What the tables map at set-up: the VMA's first page in each PTE table.
      for (unsigned long a = l.start; a < l.end; a = pt_addr_end(a, l.end, PMD_SIZE)) map_at_setup(v, a);
    }
    return v;
  }

  // A page mapped at set-up at addr of v (ghost content of its PTE table): the file's page
  // there, or an anonymous one for an anonymous VMA or a private copy written to.
  static void map_at_setup(vm_area_struct* v, unsigned long addr) {
    map_at_setup(v, addr, !v->vm_file || v->anon_vma ? page_kind::anon : page_kind::file);
  }
  static void map_at_setup(vm_area_struct* v, unsigned long addr, page_kind kind) {
    if (v->hugetlb) return;  // mapped by PMD entries: no PTE table
    pt_set_pte(vma_pgtables(v)->slot(PTE_TABLE, addr), vma_page(v, addr, kind));
  }

  // A hugetlb fault of mm at addr ran huge_pmd_share before the scenario starts: mm's PUD table
  // is there and its pud entry points to `table`, another process's PMD table, which counts one
  // more sharer (mm's slots reserved at set-up, tables_exist false).
  static void share_pmd_table_at_setup(mm_struct* mm, unsigned long addr, table_page* table) {
    table_page* pud_table = mm->pgtables.slot(PUD_TABLE, addr);
    pud_table->state.store(PT_PRESENT, rl::memory_order_relaxed);
    pud_table->ghost_state = PT_PRESENT;
    pud_table->ghost_users = 1;
    table_page* pud = mm->pgtables.slot(PMD_TABLE, addr);
    pud->state.store(PT_PRESENT, rl::memory_order_relaxed);
    pud->ghost_state = PT_PRESENT;
    pud->shared = table;
    table->ghost_users++;
    table->pmd_pts.store(table->pmd_pts.load(rl::memory_order_relaxed) + 1, rl::memory_order_relaxed);
  }

  // Link a VMA into its file's tree at set-up (it was mapped before the scenario starts).
  void link_at_setup(vm_area_struct* v) {
    if (!v->vm_file) return;
    address_space* m = v->vm_file->f_mapping;
    linked_at_setup |= 1u << v->id;
    m->ghost_i_mmap |= 1u << v->id;
    m->ghost_i_mmap_writable += v->shared_maywrite;
    m->i_mmap($) = m->ghost_i_mmap;
    m->i_mmap_writable.store(m->ghost_i_mmap_writable, rl::memory_order_relaxed);
  }

  // A process whose VMAs are already mapped: each file VMA is in its mapping's tree. With
  // tables_exist false, their page tables are still to be allocated by faults.
  mm_struct* add_mm(const char* name, const layout_vma* l, int n, bool tables_exist = true) {
    if (nmm == (int)std::size(mms)) {
      std::fprintf(stderr, "model: more than %d processes in a teardown world (give the scenario its own mm)\n",
                   (int)std::size(mms));
      std::abort();
    }
    mm_struct* mm = &mms[nmm++];
    mm->name = name;
    return add_vmas(mm, l, n, tables_exist);
  }
  // The same for an mm the scenario holds itself (a process beyond the world's two).
  mm_struct* add_vmas(mm_struct* mm, const layout_vma* l, int n, bool tables_exist = true) {
    for (int i = 0; i < n; i++) {
      unsigned long file_base = 0;  // the first VMA of the same file: offset 0
      for (int j = 0; j < i && !file_base; j++)
        if (l[j].file == l[i].file) file_base = l[j].start;
      vm_area_struct* v = new_vma(l[i], mm, file_base, tables_exist);
      mm->vmas[mm->nr++] = v;
      link_at_setup(v);
    }
    mm->mt_entries = mm->nr;
    return mm;
  }

  // DESIGN invariant 3 and the end state: every file VMA of a torn-down mm removed exactly once,
  // no anonymous VMA touched, and (check_mm) not one page-table page left.
  void check_torn_down(mm_struct* mm) {
    check_removed(mm, mm);
    int left = mm->pgtables.first_unfreed();
    VM_CHECK(left < 0, "page-table leak", "%s table %#lx of %s was never freed (check_mm: non-zero pgtables_bytes)",
             left < 0 ? "" : pt_level_name(mm->pgtables.pages[left].level),
             left < 0 ? 0UL : mm->pgtables.pages[left].base, mm->name);
    check_gathered_tables_freed(mm);
  }
  // A table no VMA of the tree needs any more is never freed (not at exit either, whose
  // free_pgd_range calls cover the VMAs' ranges): check_mm's leak, found now.
  static void check_no_orphan_tables(mm_struct* mm) {
    const mm_pgtables& pt = mm->pgtables;
    for (int i = 0; i < pt.n; i++) {
      const table_page& p = pt.pages[i];
      if (p.ghost_state != PT_PRESENT) continue;
      bool needed = false;
      for (int v = 0; v < mm->nr; v++)
        needed |= mm->vmas[v]->vm_start < p.base + pt_span(p.level) && p.base < mm->vmas[v]->vm_end;
      VM_CHECK(needed, "page-table leak", "%s table %#lx of %s is left with no VMA over it", pt_level_name(p.level),
               p.base, mm->name);
    }
  }
  // Every table whose entry was cleared had its page freed by the end (tlb_finish_mmu ran).
  static void check_gathered_tables_freed(mm_struct* mm) {
    int left = mm->pgtables.first_cleared_not_freed();
    VM_CHECK(left < 0, "page-table leak", "%s table %#lx of %s was cleared but its page never freed",
             left < 0 ? "" : pt_level_name(mm->pgtables.pages[left].level),
             left < 0 ? 0UL : mm->pgtables.pages[left].base, mm->name);
  }
  // The file VMAs of `vmas` (an mm, or a munmap's detached tree) were each removed exactly once
  // if they were torn down, else never.
  static void check_removed(const mm_struct* vmas, const mm_struct* owner, bool torn_down = true) {
    for (int i = 0; i < vmas->nr; i++) {
      vm_area_struct* v = vmas->vmas[i];
      int want = torn_down && v->vm_file ? 1 : 0;
      VM_CHECK(owner->removed[v->id] == want, "exactly once", "vma %d (%s) of %s was removed %d times, expected %d",
               v->id, v->vm_file ? v->vm_file->name : "anonymous", owner->name, owner->removed[v->id], want);
      if (!torn_down) check_tables_kept(v);
    }
  }
  // A VMA that stays mapped keeps every table page it needs (a freed one loses its PTEs: the
  // kernel's "Bad rss-counter state"); khugepaged may have retracted its PTE tables.
  static void check_tables_kept(vm_area_struct* v) {
    mm_pgtables* pt = vma_pgtables(v);
    for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE})
      for (unsigned long a = pt_base(l, v->vm_start); a < v->vm_end; a += pt_span(l)) {
        table_page* p = pt->find(l, a);
        VM_CHECK(!p || p->ghost_state != PT_FREED, "page tables",
                 "%s table %#lx of %s freed while vma %d, still mapped, uses it", pt_level_name(l), a, pt->owner, v->id);
      }
  }
  // Each tree holds what it held at set-up, less the VMAs `torn` down, plus those `linked` since.
  void check_trees_after(unsigned torn, unsigned linked) {
    unsigned live = (linked_at_setup & ~torn) | linked, want[2] = {0, 0};
    for (int i = 0; i < nvma; i++)
      if ((live >> i & 1) && vma_pool[i].vm_file) want[vma_pool[i].vm_file->f_mapping->id - 1] |= 1u << i;
    check_trees(want[0], want[1]);
  }
  void check_trees(unsigned live_a, unsigned live_b) {
    VM_CHECK(mappings[0].i_mmap($) == live_a, "exactly once", "mapping A holds VMA set %#x, expected %#x",
             (unsigned)mappings[0].i_mmap($), live_a);
    VM_CHECK(mappings[1].i_mmap($) == live_b, "exactly once", "mapping B holds VMA set %#x, expected %#x",
             (unsigned)mappings[1].i_mmap($), live_b);
  }
  // The explored run's lock round trips, checked against the plain run of the same code.
  // `others`: the thread's write locks that are not its teardown's (an mmap linking a VMA).
  void report_write_locks(int thread, int others = 0) {
    exploration::stat("write_locks_explored", g_write_locks_by_thread[thread] - others);
  }
  // Whether some explored run reached the window that deferred table freeing protects (a stat
  // that stays 1 once set): a scenario whose walker never got there would verify vacuously.
  void report_lockless_window() {
    if (g_lockless_read_of_cleared_table) exploration::stat("reached_lockless_read_of_cleared_table", 1);
  }
};

// The common shape of a teardown scenario: one process (Derived::kLayout) exits while another
// thread does Derived::concurrently(world) — an rmap walk, a truncation — on its mappings.
template <class Derived, class Sem = rwsem_abstract>
struct exit_against : scenario_base<Derived, 2> {
  teardown_world<Sem> w;
  mm_struct* mm;

  exit_against() {
    w.set_files(Derived::kLayout.files, (int)std::size(Derived::kLayout.files));
    mm = w.add_mm("exiting process", Derived::kLayout.vmas, (int)std::size(Derived::kLayout.vmas));
    mm->exiting = true;  // exit_mmap runs once mm_users is 0
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(mm);
    else
      Derived::concurrently(&w);
  }

  void after() {
    w.check_torn_down(mm);
    w.check_trees(0, 0);
    w.report_write_locks(0);
  }
};

// The common shape of a munmap scenario: a process (Derived::kLayout) unmaps its VMAs
// [kFirst, kFirst + kCount) while another thread does Derived::concurrently(world). The
// VMAs were detached from the mm's tree before the threads start (vms_gather_munmap_vmas).
template <class Derived, class Sem = rwsem_abstract>
struct munmap_against : scenario_base<Derived, 2> {
  teardown_world<Sem> w;
  mm_struct* mm;
  mm_struct detached{"munmap's detached VMAs"};
  vm_area_struct *prev = nullptr, *next = nullptr;

  munmap_against() {
    w.set_files(Derived::kLayout.files, (int)std::size(Derived::kLayout.files));
    mm = w.add_mm("unmapping process", Derived::kLayout.vmas, (int)std::size(Derived::kLayout.vmas));
    int kept = 0;
    for (int i = 0; i < mm->nr; i++) {
      vm_area_struct* v = mm->vmas[i];
      if (i >= Derived::kFirst && i < Derived::kFirst + Derived::kCount)
        detached.vmas[detached.nr++] = v;
      else
        mm->vmas[kept++] = v;
    }
    mm->nr = mm->mt_entries = kept;
    detached.mt_entries = detached.nr;
    if (Derived::kFirst > 0) prev = mm->vmas[Derived::kFirst - 1];
    if (Derived::kFirst < kept) next = mm->vmas[Derived::kFirst];
  }

  void thread(unsigned i) {
    if (i == 0)
      do_munmap(mm, &detached, prev, next);
    else
      Derived::concurrently(&w);
  }

  void after() {
    w.check_removed(&detached, mm);
    w.check_removed(mm, mm, false);  // the VMAs that stay: never removed, their tables kept
    w.check_gathered_tables_freed(mm);
    unsigned torn = 0;
    for (int i = 0; i < detached.nr; i++) torn |= 1u << detached.vmas[i]->id;
    w.check_trees_after(torn, 0);
    w.report_write_locks(0);
  }
};

// The common shape of a failed-fork scenario (kernel/fork.c): the child's maple tree holds the
// VMAs dup_mmap copied (Derived::kLayout), then XA_ZERO_ENTRY where it stopped, then the
// parent's VMA (Derived::kParentVma) that was never copied. The child exits while an rmap
// walker walks that VMA's file; free_pgtables must stop at the marker.
template <class Derived>
struct failed_fork_against : scenario_base<Derived, 2> {
  teardown_world<rwsem_abstract> w;
  mm_struct* child;
  mm_struct parent{"parent process"};
  vm_area_struct* parents_vma;

  failed_fork_against() {
    w.set_files(Derived::kLayout.files, (int)std::size(Derived::kLayout.files));
    child = w.add_mm("child of a failed fork", Derived::kLayout.vmas, (int)std::size(Derived::kLayout.vmas));
    parents_vma = w.new_vma(Derived::kParentVma, &parent);
    w.link_at_setup(parents_vma);
    child->vmas[child->mt_entries++] = &g_xa_zero_entry;  // mas_store(&vmi.mas, XA_ZERO_ENTRY)
    child->vmas[child->mt_entries++] = parents_vma;
  }

  void thread(unsigned i) {
    if (i == 0)
      exit_mmap(child);
    else
      rmap_walk_file(parents_vma->vm_file->f_mapping, 0);
  }

  void after() {
    w.check_torn_down(child);
    w.check_tables_kept(parents_vma);
    unsigned torn = 0;
    for (int i = 0; i < child->nr; i++) torn |= 1u << child->vmas[i]->id;
    w.check_trees_after(torn, 0);
    w.report_write_locks(0);
  }
};

// The VMAs of a scenario's layout that its teardown thread tears down, for the lock figures:
// all of them, or [kFirst, kFirst + kCount) where the scenario says so (munmap).
template <class S, class = void>
struct torn_range {
  static constexpr int first = 0, count = (int)std::size(S::kLayout.vmas);
};
template <class S>
struct torn_range<S, std::void_t<decltype(S::kFirst)>> {
  static constexpr int first = S::kFirst, count = S::kCount;
};

// A teardown scenario registers its layout's figures with it, and whether the unbatched
// baseline is verified on it too.
#define VMAVERIFY_TEARDOWN_SCENARIO(Suite, name, description, search) \
  VMAVERIFY_TEARDOWN_SCENARIO_BASELINE(Suite, name, description, search, true)
#define VMAVERIFY_TEARDOWN_SCENARIO_BASELINE(Suite, name, description, search, baseline)                      \
  static void figures_##Suite(std::map<std::string, long>* out) {                                            \
    layout_figures(Suite::kLayout.vmas + torn_range<Suite>::first, torn_range<Suite>::count,                  \
                   Suite::kLayout.files, (int)std::size(Suite::kLayout.files), out);                          \
  }                                                                                                          \
  static ScenarioRegistrar registrar_##Suite({name, description, search, &exploration::explore<Suite>,      \
                                              &figures_##Suite, baseline})
