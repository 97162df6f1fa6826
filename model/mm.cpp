#include "model/mm.hpp"
#include "model/call_chain.hpp"

#include "model/hugetlb.hpp"
#include "model/mmap_lock.hpp"
#include "model/mmu_gather.hpp"

#include "model/batch_states.hpp"

vm_area_struct* g_vma_by_id[MAX_VMAS];
vm_area_struct g_xa_zero_entry;
int g_write_locks_by_thread[8];
mm_struct* g_exiting_mm[8];
teardown_variant g_teardown_variant = teardown_variant::batched;
free_pgtables_fn g_kernel_free_pgtables_linked, g_kernel_free_pgtables;
const char* g_kernel_source_files;
const kernel_rwsem_ops *g_kernel_rwsem_linked, *g_kernel_rwsem;
const char* g_kernel_rwsem_source_file;

void teardown_free_pgtables(ma_state* mas, vm_area_struct* vma, unsigned long floor, unsigned long ceiling,
                            bool mm_wr_locked) {
  if (g_kernel_free_pgtables && g_teardown_variant == teardown_variant::batched)
    g_kernel_free_pgtables(mas, vma, floor, ceiling, mm_wr_locked);
  else
    free_pgtables(mas, vma, floor, ceiling, mm_wr_locked, g_teardown_variant);
}

static int popcount_writable(const address_space* m) {
  int n = 0;
  for (int i = 0; i < MAX_VMAS; i++)
    if ((m->ghost_i_mmap >> i & 1) && g_vma_by_id[i] && vma_is_shared_maywrite(g_vma_by_id[i])) n++;
  return n;
}

void i_mmap_lock_write(address_space* m) {
  KERNEL_FRAME();
  m->i_mmap_rwsem->down_write();
  g_write_locks_by_thread[rl::thread_index()]++;
}

void i_mmap_unlock_write(address_space* m) {
  KERNEL_FRAME();
  // DESIGN invariant 6 as the kernel keeps it, checked whenever a writer is done with the
  // mapping: the shared writable VMAs in the tree plus the mmap_region calls in flight that hold
  // mapping_map_writable.
  VM_CHECK(m->ghost_i_mmap_writable == popcount_writable(m) + m->ghost_map_writable_holds, "counter",
           "i_mmap_writable of mapping %s is %d but its tree holds %d shared writable VMAs and %d mmap calls hold it",
           m->name, m->ghost_i_mmap_writable, popcount_writable(m), m->ghost_map_writable_holds);
  m->i_mmap_rwsem->up_write();
}

void i_mmap_lock_read(address_space* m) { m->i_mmap_rwsem->down_read(); }
bool i_mmap_trylock_read(address_space* m) { return m->i_mmap_rwsem->down_read_trylock(); }
void i_mmap_unlock_read(address_space* m) { m->i_mmap_rwsem->up_read(); }

// i_mmap_assert_write_locked (include/linux/fs.h): lockdep, on the ghost owner record.
static void i_mmap_assert_write_locked(address_space* m, const char* what, int vma) {
  VM_CHECK(m->i_mmap_rwsem->held_write_by_current(), "lock not held",
           "%s of vma %d in mapping %s without i_mmap_rwsem held for write", what, vma, m->name);
}

void __remove_shared_vm_struct(vm_area_struct* vma, address_space* mapping) {
  KERNEL_FRAME();
  i_mmap_assert_write_locked(mapping, "removal", vma->id);
  if (vma_is_shared_maywrite(vma) && !mutant(Mutant::remove_skips_writable)) mapping_unmap_writable_removed(mapping);
  vma_interval_tree_remove(vma, mapping);
}

void mapping_unmap_writable_removed(address_space* mapping) {
  mapping->ghost_i_mmap_writable = mapping->i_mmap_writable.fetch_sub(1, rl::memory_order_relaxed) - 1;
}

void vma_interval_tree_remove(vm_area_struct* vma, address_space* mapping) {
  KERNEL_FRAME();
  i_mmap_assert_write_locked(mapping, "removal", vma->id);
  unsigned tree = mapping->i_mmap($);
  mm_struct* mm = vma->vm_mm;
  VM_CHECK(tree >> vma->id & 1, "exactly once", "vma %d removed from mapping %s but it is not in the tree (removed %d times before)",
           vma->id, mapping->name, mm->removed[vma->id]);
  mapping->i_mmap($) = tree & ~(1u << vma->id);
  mapping->ghost_i_mmap = tree & ~(1u << vma->id);
  mm->removed[vma->id]++;
}

void __vma_link_file(vm_area_struct* vma, address_space* mapping) {
  KERNEL_FRAME();
  i_mmap_assert_write_locked(mapping, "insertion", vma->id);
  if (vma_is_shared_maywrite(vma))
    mapping->ghost_i_mmap_writable = mapping->i_mmap_writable.fetch_add(1, rl::memory_order_relaxed) + 1;  // mapping_allow_writable
  unsigned tree = mapping->i_mmap($);  // vma_interval_tree_insert
  mapping->i_mmap($) = tree | 1u << vma->id;
  mapping->ghost_i_mmap = tree | 1u << vma->id;
}

void vma_link_file(vm_area_struct* vma) {
  KERNEL_FRAME();
  file* f = vma->vm_file;
  if (f) {
    address_space* mapping = f->f_mapping;
    i_mmap_lock_write(mapping);
    __vma_link_file(vma, mapping);
    i_mmap_unlock_write(mapping);
  }
}

void VM_WARN_ON_ONCE_mapping(bool cond, vm_area_struct* vma) {
  VM_CHECK(!cond, "same mapping", "vma %d batched with the i_mmap_rwsem of another mapping", vma->id);
}

// The batch state as the Z3 specs see it (proofs/batch_state.hpp); VMA ids relative to the mm.
static void record_snapshot(const unlink_vma_file_batch<vm_area_struct>* vb, const mm_struct* mm) {
  const int base = mm->vmas[0]->id;
  BatchSnapshot s;
  std::memset(static_cast<void*>(&s), 0, sizeof s);  // zero padding too: states are deduplicated bytewise
  s.count = vb->count;
  for (int i = 0; i < BATCH_SLOTS; i++) s.vmas[i] = i < vb->count ? vb->vmas[i]->id - base : -1;
  s.nvmas = mm->nr;
  for (int i = 0; i < mm->nr; i++) {
    const vm_area_struct* v = mm->vmas[i];
    const int id = v->id - base;
    s.vm_file[id] = v->vm_file ? v->vm_file->id : 0;
    if (v->vm_file) s.f_mapping[v->vm_file->id] = v->vm_file->f_mapping->id;
    s.added[id] = mm->added[v->id];
    s.removed[id] = mm->batch_removed[v->id];
    s.append_seq[id] = mm->append_seq[v->id];
    s.remove_seq[id] = mm->remove_seq[v->id];
  }
  s.lock_round_trips = mm->batch_round_trips;
  s.finalized = mm->finalized;
  s.appends = mm->appends;
  s.removals = mm->removals;
  record_batch_state(s);
  char why[256];
  if (g_batch_state_check && !g_batch_state_check(s, why, sizeof why)) VM_CHECK(false, "spec", "%s", why);
}

// The batch as the checks read it, as a row of the trace (a history entry, not a scheduling
// point): a step missing there (a forgotten final) is a row missing.
static void log_batch_step(const unlink_vma_file_batch<vm_area_struct>* vb, const mm_struct* mm, batch_event ev) {
  if (!model_rows_wanted()) return;
  static const char* const step[] = {"init", "add", "process", "final"};
  static const char* const kernel_function[] = {"unlink_file_vma_batch_init", "unlink_file_vma_batch_add",
                                                "unlink_file_vma_batch_process", "unlink_file_vma_batch_final"};
  char row[200];
  int n = std::snprintf(row, sizeof row, "batch %s: count=%d vmas=[", step[ev], vb->count);
  const int shown = std::min(std::max(vb->count, 0), unlink_vma_file_batch<vm_area_struct>::ARRAY_SIZE);
  for (int i = 0; i < shown && n < (int)sizeof row - 40; i++)
    n += std::snprintf(row + n, sizeof row - n, "%svma %d", i ? " " : "", vb->vmas[i]->id - mm->vmas[0]->id);
  std::snprintf(row + n, sizeof row - n, "]%s%s", shown ? " file " : "",
                shown && vb->vmas[0]->vm_file ? vb->vmas[0]->vm_file->name : "");
  rl::ctx().exec_log_msg(rl::debug_info(kernel_function[ev], __FILE__, __LINE__), row);
}

void unlink_file_vma_batch_event(unlink_vma_file_batch<vm_area_struct>* vb, batch_event ev) {
  // Ghost bookkeeping first, then the state is recorded (so that the specs see a violating
  // state too), then DESIGN invariants 1 and 2 are checked at this step.
  mm_struct* mm = g_exiting_mm[rl::thread_index()];
  const int n = std::min(vb->count, unlink_vma_file_batch<vm_area_struct>::ARRAY_SIZE);
  if (ev == BATCH_ADD && vb->count > 0 && vb->count <= unlink_vma_file_batch<vm_area_struct>::ARRAY_SIZE) {
    vm_area_struct* last = vb->vmas[vb->count - 1];
    mm->added[last->id]++;
    mm->append_seq[last->id] = ++mm->appends;
    mm->finalized = false;
  }
  if (ev == BATCH_PROCESS) {
    mm->batch_round_trips++;
    for (int i = 0; i < n; i++) {
      mm->batch_removed[vb->vmas[i]->id]++;
      mm->remove_seq[vb->vmas[i]->id] = ++mm->removals;
    }
  }
  if (ev == BATCH_FINAL) mm->finalized = true;
  // process ends with init: the spec's process step is both, so its state is recorded at init.
  if (ev != BATCH_PROCESS) record_snapshot(vb, mm);
  log_batch_step(vb, mm, ev);

  VM_CHECK(vb->count >= 0 && vb->count <= unlink_vma_file_batch<vm_area_struct>::ARRAY_SIZE, "bounded count",
           "batch count is %d after %s", vb->count, ev == BATCH_ADD ? "unlink_file_vma_batch_add" : "a batch step");
  for (int i = 0; i < vb->count; i++) {
    vm_area_struct* v = vb->vmas[i];
    VM_CHECK(v->vm_file != nullptr, "file backed", "anonymous vma %d is in the batch at slot %d", v->id, i);
    VM_CHECK(v->vm_file == vb->vmas[0]->vm_file, "same mapping",
             "batch slot %d holds vma %d of file %s, slot 0 vma %d of file %s", i, v->id, v->vm_file->name,
             vb->vmas[0]->id, vb->vmas[0]->vm_file->name);
  }
}

vm_area_struct* mas_find(ma_state* mas, unsigned long max) {
  KERNEL_FRAME();
  if (mas->next >= mas->nr) return nullptr;
  vm_area_struct* v = mas->entries[mas->next];
  if (!xa_is_zero(v) && v->vm_start > max) return nullptr;
  mas->next++;
  return v;
}

// A per-VMA call on what free_pgtables took from the maple tree: the kernel would oops on
// XA_ZERO_ENTRY's address (0x406) at its first dereference; the model reports it here, which
// every path of free_pgtables reaches for every entry it follows.
static void check_is_vma(vm_area_struct* vma, const char* fn) {
  VM_CHECK(!xa_is_zero(vma), "bad pointer", "%s called on XA_ZERO_ENTRY, the marker a failed dup_mmap left", fn);
}
void vma_start_write(vm_area_struct* vma) {
  KERNEL_FRAME();
  check_is_vma(vma, "vma_start_write");
  if (vma->vm_lock) vma_start_write_locked(vma->vm_mm->mmap_lock, vma->vm_lock);
}
void unlink_anon_vmas(vm_area_struct* vma) { check_is_vma(vma, "unlink_anon_vmas"); }

void free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor, unsigned long ceiling) {
  free_pgd_range(&mas->mm->pgtables, addr, end, floor, ceiling);
}

void hugetlb_free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor,
                            unsigned long ceiling) {
  KERNEL_FRAME();
  free_pgd_range(mas, addr, end, floor, ceiling);
}

void log_task(const char* kernel_function, const char* file, int line, const char* role) {
  if (!model_rows_wanted()) return;
  char row[128];
  std::snprintf(row, sizeof row, "task: %s", role);
  rl::ctx().exec_log_msg(rl::debug_info(kernel_function, file, line), row);
}

void exit_mmap(mm_struct* mm) {
  KERNEL_FRAME();
  LOG_TASK("exit (exit_mmap)");
  g_exiting_mm[rl::thread_index()] = mm;
  // vma_next: an empty tree, or XA_ZERO_ENTRY first (dup_mmap failed at once): nothing to free.
  if (mm->mt_entries == 0 || xa_is_zero(mm->vmas[0])) return;
  ma_state mas{mm, mm->vmas, mm->mt_entries};
  tlb_gather_mmu();  // tlb_gather_mmu_fullmm
  // unmap_vmas: of the zap, only a hugetlb VMA's PMD sharing is modelled (model/hugetlb.hpp);
  // a VMA without a vma_lock has nothing modelled there.
  for (int i = 0; i < mm->mt_entries && !xa_is_zero(mm->vmas[i]); i++)
    if (mm->vmas[i]->vm_private_data) unmap_hugetlb_vma_final(mm->vmas[i]);
  teardown_free_pgtables(&mas, mm->vmas[0], FIRST_USER_ADDRESS, USER_PGTABLES_CEILING, true);
  tlb_finish_mmu();
}
