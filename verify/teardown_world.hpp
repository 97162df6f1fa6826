// The common world of the teardown scenarios: mappings A and B with their i_mmap_rwsem,
// files, and processes whose VMAs come from a static layout table. A scenario file declares
// its layout and its threads; this builds the kernel objects from it.
#pragma once
#include <iterator>
#include <map>
#include <string>
#include "model/mm.hpp"
#include "model/mm_plain.hpp"
#include "model/rwsem_abstract.hpp"
#include "model/rwsem_count.hpp"
#include "verify/scenario_base.hpp"

constexpr unsigned long KiB4 = 0x1000;

// One VMA of a layout: [start, end), the file it maps (0 = anonymous, else 1-based index in
// the scenario's file table), and its flags.
struct layout_vma {
  unsigned long start, end;
  int file;
  bool shared_write = false;
  bool hugetlb = false;
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

  teardown_world() {
    for (auto& v : g_vma_by_id) v = nullptr;
    for (auto& n : g_write_locks_by_thread) n = 0;
    for (auto& m : g_exiting_mm) m = nullptr;
  }

  void set_files(const layout_file* f, int n) {
    for (int i = 0; i < n; i++) files[i] = file{f[i].name, &mappings[f[i].mapping], i + 1};
  }

  vm_area_struct* new_vma(const layout_vma& l, mm_struct* owner) {
    vm_area_struct* v = &vma_pool[nvma];
    v->id = nvma++;
    v->vm_start = l.start;
    v->vm_end = l.end;
    v->vm_file = l.file ? &files[l.file - 1] : nullptr;
    v->shared_maywrite = l.shared_write;
    v->hugetlb = l.hugetlb;
    v->vm_mm = owner;
    g_vma_by_id[v->id] = v;
    trace_name(&v->pgtables, "page tables of vma %d", v->id);
    return v;
  }

  // A process whose VMAs are already mapped: each file VMA is in its mapping's tree.
  mm_struct* add_mm(const char* name, const layout_vma* l, int n) {
    mm_struct* mm = &mms[nmm++];
    mm->name = name;
    for (int i = 0; i < n; i++) {
      vm_area_struct* v = new_vma(l[i], mm);
      mm->vmas[mm->nr++] = v;
      if (!v->vm_file) continue;
      address_space* m = v->vm_file->f_mapping;
      m->ghost_i_mmap |= 1u << v->id;
      m->ghost_i_mmap_writable += v->shared_maywrite;
      m->i_mmap($) = m->ghost_i_mmap;
      m->i_mmap_writable($) = m->ghost_i_mmap_writable;
    }
    return mm;
  }

  // DESIGN invariant 3 and the end state: every file VMA of a torn-down mm removed exactly once,
  // no anonymous VMA touched, every page table freed, and the trees hold exactly the live VMAs.
  void check_torn_down(mm_struct* mm) {
    for (int i = 0; i < mm->nr; i++) {
      vm_area_struct* v = mm->vmas[i];
      int want = v->vm_file ? 1 : 0;
      VM_CHECK(mm->removed[v->id] == want, "exactly once", "vma %d (%s) of %s was removed %d times, expected %d", v->id,
               v->vm_file ? v->vm_file->name : "anonymous", mm->name, mm->removed[v->id], want);
      VM_CHECK(v->pgtables.load(rl::memory_order_relaxed) == PT_FREED, "page tables", "page tables of vma %d not freed",
               v->id);
    }
  }
  void check_trees(unsigned live_a, unsigned live_b) {
    VM_CHECK(mappings[0].i_mmap($) == live_a, "exactly once", "mapping A holds VMA set %#x, expected %#x",
             (unsigned)mappings[0].i_mmap($), live_a);
    VM_CHECK(mappings[1].i_mmap($) == live_b, "exactly once", "mapping B holds VMA set %#x, expected %#x",
             (unsigned)mappings[1].i_mmap($), live_b);
  }
  // The explored run's lock round trips, checked against the plain run of the same code.
  void report_write_locks(int thread) { exploration::stat("write_locks_explored", g_write_locks_by_thread[thread]); }
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

// A teardown scenario registers its layout's figures with it, and whether the unbatched
// baseline is verified on it too.
#define VMAVERIFY_TEARDOWN_SCENARIO(Suite, name, description, search) \
  VMAVERIFY_TEARDOWN_SCENARIO_BASELINE(Suite, name, description, search, true)
#define VMAVERIFY_TEARDOWN_SCENARIO_BASELINE(Suite, name, description, search, baseline)                      \
  static void figures_##Suite(std::map<std::string, long>* out) {                                            \
    layout_figures(Suite::kLayout.vmas, sizeof Suite::kLayout.vmas / sizeof(layout_vma), Suite::kLayout.files, \
                   sizeof Suite::kLayout.files / sizeof(layout_file), out);                                   \
  }                                                                                                          \
  static ScenarioRegistrar registrar_##Suite({name, description, search, &exploration::explore<Suite>,      \
                                              &figures_##Suite, baseline})
