// The kernel objects of VMA teardown under the model checker: struct file, address_space,
// vm_area_struct, mm_struct (include/linux/fs.h, include/linux/mm_types.h), and the functions
// model/vma_batch.hpp and model/free_pgtables.hpp call on them. Shared state is instrumented;
// layout data that no other thread writes (addresses, vm_file, flags) stays plain.
#pragma once
#include "model/check.hpp"
#include "model/free_pgtables.hpp"
#include "model/kernel_source.hpp"
#include "model/page_tables.hpp"
#include "model/rwsem.hpp"
#include "proofs/batch_state.hpp"

constexpr int MAX_VMAS = SNAPSHOT_MAX_VMAS;

struct address_space {
  const char* name;            // "A": traces say "mapping A"
  rw_semaphore* i_mmap_rwsem;  // faithful or abstract: the scenario chooses
  // i_mmap, the interval tree of VMAs mapping this file, as a set of VMA ids (bit i = vma i):
  // one instrumented word, so that an insertion or removal is one load and one store.
  rl::var<unsigned> i_mmap;
  // i_mmap_writable (atomic_t): raised by __vma_link_file and dropped by __remove_shared_vm_struct
  // under the write lock, and also raised and dropped without it by mmap_region's
  // mapping_map_writable / mapping_unmap_writable around the mapping of a shared writable VMA.
  rl::atomic<int> i_mmap_writable;
  int id;
  // Ghost mirrors of the two above (checker bookkeeping, updated with every store), and the
  // mmap_region calls holding mapping_map_writable right now.
  unsigned ghost_i_mmap = 0;
  int ghost_i_mmap_writable = 0;
  int ghost_map_writable_holds = 0;

  address_space(const char* n, int ident, rw_semaphore* sem) : name(n), i_mmap_rwsem(sem), id(ident) {
    i_mmap($) = 0u;
    i_mmap_writable.store(0, rl::memory_order_relaxed);
    trace_name(&i_mmap, "i_mmap of %s", n);
    trace_name(&i_mmap_writable, "i_mmap_writable of %s", n);
  }
};

struct file {
  const char* name;
  address_space* f_mapping;  // immutable; two files of one inode share it
  int id;                    // 1.. (0 means anonymous in snapshots)
};

struct mm_struct;
struct vma_lock_t;
struct hugetlb_vma_lock;

struct vm_area_struct {
  int id = -1;  // index in the scenario's VMA table; traces say "vma N"
  unsigned long vm_start = 0, vm_end = 0;
  unsigned long vm_pgoff = 0;    // file offset of vm_start, in pages
  file* vm_file = nullptr;       // NULL: anonymous
  bool shared_maywrite = false;  // VM_SHARED | VM_MAYWRITE: counted in i_mmap_writable
  bool hugetlb = false;
  bool anon_vma = false;         // a MAP_PRIVATE mapping written to (khugepaged skips it)
  // vma->anon_vma where a task sets it during the run (anon_vma_prepare: UFFDIO_COPY into a
  // private mapping), instrumented; else null and the flag above, set at set-up, is it.
  rl::atomic<bool>* anon_vma_live = nullptr;
  bool growsdown = false;        // VM_GROWSDOWN: a stack, which a fault below it may grow
  // Its per-VMA lock, in the scenarios where a fault takes it (else null: nothing reads it).
  vma_lock_t* vm_lock = nullptr;
  // A shareable hugetlb VMA's hugetlb vma_lock (vm_private_data), in the scenarios where its PMD
  // table may be shared (model/hugetlb.hpp; else null: no sharing, no hugetlb zap modelled).
  hugetlb_vma_lock* vm_private_data = nullptr;
  mm_struct* vm_mm = nullptr;
};

// XA_ZERO_ENTRY (include/linux/xarray.h): the marker a failed dup_mmap stores in the child's
// maple tree where duplication stopped. The kernel's is the non-pointer 0x406; the model's is
// an object whose every per-VMA use is checked, so following it is reported, not a crash.
extern vm_area_struct g_xa_zero_entry;
inline bool xa_is_zero(const vm_area_struct* entry) { return entry == &g_xa_zero_entry; }

// Every VMA of the scenario by id, so that a walker can go from the tree to the VMA.
extern vm_area_struct* g_vma_by_id[MAX_VMAS];

struct mmap_lock_t;

struct mm_struct {
  explicit mm_struct(const char* n = "") : name(n) { mt_seq.store(0, rl::memory_order_relaxed); }
  const char* name;
  // mmap_lock, in the scenarios where a task of the mm faults while another unmaps (else
  // null: the unmapping's locked phase is set-up and nothing else takes it).
  mmap_lock_t* mmap_lock = nullptr;
  // The maple tree, in address order: the mm's own VMAs vmas[0, nr), then, after a failed
  // dup_mmap only, XA_ZERO_ENTRY and the parent's VMAs that were never duplicated.
  vm_area_struct* vmas[MAX_VMAS];
  int nr = 0, mt_entries = 0;
  // Advanced by every change to the tree after set-up (vma_iter_store, vma_iter_clear_gfp), in
  // the step that makes the change, and read by every lookup (find_vma, and mas_walk under RCU)
  // in the step that reads the tree, so that the search sees a lookup and a change race even
  // where a bug lets them run under no common lock.
  rl::atomic<int> mt_seq;
  mm_pgtables pgtables;
  bool exiting = false;  // mm_users has dropped to 0 (hpage_collapse_test_exit)
  // Ghost record of the teardown, for the checks and for the Z3 specs (proofs/batch_state.hpp).
  int added[MAX_VMAS] = {}, removed[MAX_VMAS] = {};
  int batch_round_trips = 0;  // i_mmap_lock_write by unlink_file_vma_batch_process
  bool finalized = false;
  // Ghost numbering of the batch's appends and removals (the removal_order spec).
  int batch_removed[MAX_VMAS] = {};
  int appends = 0, append_seq[MAX_VMAS] = {};
  int removals = 0, remove_seq[MAX_VMAS] = {};
};

// READ_ONCE(vma->anon_vma): whether the VMA has anonymous pages (a written private mapping).
inline bool vma_has_anon_vma(const vm_area_struct* v) {
  return v->anon_vma_live ? v->anon_vma_live->load(rl::memory_order_relaxed) : v->anon_vma;
}
// linear_page_index (include/linux/pagemap.h): the file page the VMA maps at addr.
inline unsigned long linear_page_index(const vm_area_struct* v, unsigned long addr) {
  return ((addr - v->vm_start) >> PAGE_SHIFT) + v->vm_pgoff;
}
// What a PTE of vma at addr maps once a fault or a copy filled it (the page_tables.hpp ghost):
// the file's page there, or an anonymous page (an anonymous VMA, a private copy's written page).
inline mapped_page vma_page(const vm_area_struct* v, unsigned long addr, page_kind kind) {
  mapped_page m{};
  m.addr = addr & ~(PAGE_SIZE - 1);
  m.kind = kind;
  m.mapping = v->vm_file ? v->vm_file->f_mapping : nullptr;
  m.index = linear_page_index(v, m.addr);
  return m;
}

// vma_is_shared_maywrite (include/linux/mm.h)
inline bool vma_is_shared_maywrite(const vm_area_struct* v) { return v->shared_maywrite; }
// is_vm_hugetlb_page (include/linux/hugetlb_inline.h)
inline bool is_vm_hugetlb_page(const vm_area_struct* v) { return v->hugetlb; }

// vma_interval_tree_foreach over [first, last] (mm/interval_tree.c): the VMAs of the tree, in id
// order (the model's tree is a set), that map some page offset in the range.
template <class Fn>
inline void vma_interval_tree_foreach(address_space* mapping, unsigned long first, unsigned long last, Fn fn) {
  unsigned tree = mapping->i_mmap($);
  for (int i = 0; i < MAX_VMAS; i++) {
    if (!(tree >> i & 1)) continue;
    vm_area_struct* v = g_vma_by_id[i];
    unsigned long v_last = v->vm_pgoff + ((v->vm_end - v->vm_start) >> PAGE_SHIFT) - 1;
    if (v->vm_pgoff <= last && first <= v_last) fn(v);
  }
}

// Ghost count of i_mmap_lock_write per thread, for the lock-acquisition figures, and the mm
// each thread is tearing down (so that the batch's ghost hook knows whose batch it is).
extern int g_write_locks_by_thread[8];
extern mm_struct* g_exiting_mm[8];

// i_mmap_lock_write / i_mmap_unlock_write / i_mmap_lock_read / i_mmap_unlock_read (include/linux/fs.h)
void i_mmap_lock_write(address_space* m);
void i_mmap_unlock_write(address_space* m);
void i_mmap_lock_read(address_space* m);
bool i_mmap_trylock_read(address_space* m);
void i_mmap_unlock_read(address_space* m);

// __remove_shared_vm_struct (mm/vma.c; mm/mmap.c in v6.11)
void __remove_shared_vm_struct(vm_area_struct* vma, address_space* mapping);
// Its two steps, also what the kernel shim (model/kshim/) maps the kernel's own calls to:
// mapping_unmap_writable (include/linux/fs.h) for a removed VMA, and vma_interval_tree_remove
// (mm/interval_tree.c) with the checks on it (write lock held, the VMA in the tree once).
void mapping_unmap_writable_removed(address_space* mapping);
void vma_interval_tree_remove(vm_area_struct* vma, address_space* mapping);
// __vma_link_file and vma_link_file (mm/vma.c): link a new VMA of another process (mmap).
void __vma_link_file(vm_area_struct* vma, address_space* mapping);
void vma_link_file(vm_area_struct* vma);
// The VM_WARN_ON_ONCE in unlink_file_vma_batch_process: a batched VMA of another mapping.
void VM_WARN_ON_ONCE_mapping(bool cond, vm_area_struct* vma);
// The batch's ghost hook: checks DESIGN invariants 1-3 at every step and records the state.
void unlink_file_vma_batch_event(unlink_vma_file_batch<vm_area_struct>* vb, batch_event ev);

// The maple-tree walk of free_pgtables: over the mm's tree (exit) or over the detached VMAs of
// a munmap (mas_detach). It also stands for the mmu_gather, which knows the mm.
struct ma_state {
  mm_struct* mm;
  vm_area_struct** entries;
  int nr;
  int next = 1;  // free_pgtables starts at entries[0]
};
vm_area_struct* mas_find(ma_state* mas, unsigned long max);
// vma_start_write (include/linux/mm.h): the per-VMA lock, where a scenario gives the VMA one
// (model/mmap_lock.hpp). It and unlink_anon_vmas are called on every VMA free_pgtables visits:
// both check it is one.
void vma_start_write(vm_area_struct* vma);
// unlink_anon_vmas (mm/rmap.c): the anon_vma side is not under test and has no file lock.
void unlink_anon_vmas(vm_area_struct* vma);
// free_pgd_range (mm/memory.c) on the mm's tables (model/pgtable.hpp), and
// hugetlb_free_pgd_range (include/asm-generic/hugetlb.h: free_pgd_range on x86-64).
void free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor, unsigned long ceiling);
void hugetlb_free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor,
                            unsigned long ceiling);

// Which free_pgtables the teardown threads run: the patch's, or the unbatched baseline.
extern teardown_variant g_teardown_variant;

// free_pgtables as the teardown threads call it: the kernel's when chosen, else the model's.
void teardown_free_pgtables(ma_state* mas, vm_area_struct* vma, unsigned long floor, unsigned long ceiling,
                            bool mm_wr_locked);

// exit_mmap (mm/mmap.c), the free_pgtables step only: unmap_vmas and the TLB are outside the model.
void exit_mmap(mm_struct* mm);

// A history row (not a scheduling point) naming what the calling task is, e.g. "rmap walker
// (rmap_walk_file)": the HTML report heads the task's lane with it. Only while Relacy collects
// the failing iteration's history.
void log_task(const char* kernel_function, const char* file, int line, const char* role);
#define LOG_TASK(role) log_task(__func__, __FILE__, __LINE__, role)

// The page-table pages of a VMA in its mm, for walkers (model/actors.cpp).
inline mm_pgtables* vma_pgtables(vm_area_struct* v) { return &v->vm_mm->pgtables; }
