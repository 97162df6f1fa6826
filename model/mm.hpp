// The kernel objects of VMA teardown under the model checker: struct file, address_space,
// vm_area_struct, mm_struct (include/linux/fs.h, include/linux/mm_types.h), and the functions
// model/vma_batch.hpp and model/free_pgtables.hpp call on them. Shared state is instrumented;
// layout data that no other thread writes (addresses, vm_file, flags) stays plain.
#pragma once
#include "model/check.hpp"
#include "model/free_pgtables.hpp"
#include "model/rwsem.hpp"
#include "proofs/batch_state.hpp"

constexpr int MAX_VMAS = SNAPSHOT_MAX_VMAS;
enum pgtables_state { PT_PRESENT = 1, PT_FREED = 2 };

struct address_space {
  const char* name;            // "A": traces say "mapping A"
  rw_semaphore* i_mmap_rwsem;  // faithful or abstract: the scenario chooses
  // i_mmap, the interval tree of VMAs mapping this file, as a set of VMA ids (bit i = vma i):
  // one instrumented word, so that an insertion or removal is one load and one store.
  rl::var<unsigned> i_mmap;
  // i_mmap_writable is an atomic_t in the kernel; every update happens under i_mmap_rwsem for
  // write, so the model makes it a plain shared variable and lets the race detector check that.
  rl::var<int> i_mmap_writable;
  int id;
  // Ghost mirrors of the two above (checker bookkeeping, updated with every store).
  unsigned ghost_i_mmap = 0;
  int ghost_i_mmap_writable = 0;

  address_space(const char* n, int ident, rw_semaphore* sem) : name(n), i_mmap_rwsem(sem), id(ident) {
    i_mmap($) = 0u;
    i_mmap_writable($) = 0;
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

struct vm_area_struct {
  int id = -1;  // index in the scenario's VMA table; traces say "vma N"
  unsigned long vm_start = 0, vm_end = 0;
  file* vm_file = nullptr;       // NULL: anonymous
  bool shared_maywrite = false;  // VM_SHARED | VM_MAYWRITE: counted in i_mmap_writable
  bool hugetlb = false;
  mm_struct* vm_mm = nullptr;
  // Ghost state of the VMA's page tables: freed by free_pgd_range, touched by rmap walkers.
  // Atomic (relaxed) so that touching freed tables is reported as a use-after-free, not as a
  // race on the ghost variable itself.
  rl::atomic<int> pgtables;
  vm_area_struct() { pgtables.store(PT_PRESENT, rl::memory_order_relaxed); }
};

// Every VMA of the scenario by id, so that a walker can go from the tree to the VMA.
extern vm_area_struct* g_vma_by_id[MAX_VMAS];

struct mm_struct {
  const char* name;
  vm_area_struct* vmas[MAX_VMAS];  // in address order (the maple tree)
  int nr = 0;
  // Ghost record of the teardown, for the checks and for the Z3 specs (proofs/batch_state.hpp).
  int added[MAX_VMAS] = {}, removed[MAX_VMAS] = {};
  int batch_round_trips = 0;  // i_mmap_lock_write by unlink_file_vma_batch_process
  bool finalized = false;
  // Ghost numbering of the batch's appends and removals (the removal_order spec).
  int batch_removed[MAX_VMAS] = {};
  int appends = 0, append_seq[MAX_VMAS] = {};
  int removals = 0, remove_seq[MAX_VMAS] = {};
};

// vma_is_shared_maywrite (include/linux/mm.h)
inline bool vma_is_shared_maywrite(const vm_area_struct* v) { return v->shared_maywrite; }
// is_vm_hugetlb_page (include/linux/hugetlb_inline.h)
inline bool is_vm_hugetlb_page(const vm_area_struct* v) { return v->hugetlb; }

// Ghost count of i_mmap_lock_write per thread, for the lock-acquisition figures, and the mm
// each thread is tearing down (so that the batch's ghost hook knows whose batch it is).
extern int g_write_locks_by_thread[8];
extern mm_struct* g_exiting_mm[8];

// i_mmap_lock_write / i_mmap_unlock_write / i_mmap_lock_read / i_mmap_unlock_read (include/linux/fs.h)
void i_mmap_lock_write(address_space* m);
void i_mmap_unlock_write(address_space* m);
void i_mmap_lock_read(address_space* m);
void i_mmap_unlock_read(address_space* m);

// __remove_shared_vm_struct (mm/vma.c; mm/mmap.c in v6.11)
void __remove_shared_vm_struct(vm_area_struct* vma, address_space* mapping);
// __vma_link_file and vma_link_file (mm/vma.c): link a new VMA of another process (mmap).
void __vma_link_file(vm_area_struct* vma, address_space* mapping);
void vma_link_file(vm_area_struct* vma);
// The VM_WARN_ON_ONCE in unlink_file_vma_batch_process: a batched VMA of another mapping.
void VM_WARN_ON_ONCE_mapping(bool cond, vm_area_struct* vma);
// The batch's ghost hook: checks DESIGN invariants 1-3 at every step and records the state.
void unlink_file_vma_batch_event(unlink_vma_file_batch<vm_area_struct>* vb, batch_event ev);

// The maple-tree walk of free_pgtables, over mm->vmas.
struct ma_state {
  mm_struct* mm;
  int next = 1;
};
vm_area_struct* mas_find(ma_state* mas, unsigned long max);
// vma_start_write (include/linux/mm.h): per-VMA lock; no page-fault threads in the model.
inline void vma_start_write(vm_area_struct*) {}
// unlink_anon_vmas (mm/rmap.c): the anon_vma side is not under test and has no file lock.
inline void unlink_anon_vmas(vm_area_struct*) {}
// free_pgd_range / hugetlb_free_pgd_range (mm/memory.c, mm/hugetlb.c): mark freed the page
// tables of every VMA of the mm inside [addr, end).
void free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor, unsigned long ceiling);
void hugetlb_free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor,
                            unsigned long ceiling);

// Which free_pgtables the teardown threads run: the patch's, or the unbatched baseline.
extern teardown_variant g_teardown_variant;

// exit_mmap (mm/mmap.c), the free_pgtables step only: unmap_vmas and the TLB are outside the model.
void exit_mmap(mm_struct* mm);

// rmap_walk_file (mm/rmap.c): read lock, visit every VMA in i_mmap, touch its page tables.
void rmap_walk_file(address_space* mapping);
// unmap_mapping_range (mm/memory.c): truncation zaps the file's pages from every mapping VMA.
void unmap_mapping_range(address_space* mapping);
