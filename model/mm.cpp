#include "model/mm.hpp"

#include "model/batch_states.hpp"

vm_area_struct* g_vma_by_id[MAX_VMAS];
int g_write_locks_by_thread[8];
mm_struct* g_exiting_mm[8];
teardown_variant g_teardown_variant = teardown_variant::batched;

static int popcount_writable(const address_space* m) {
  int n = 0;
  for (int i = 0; i < MAX_VMAS; i++)
    if ((m->ghost_i_mmap >> i & 1) && g_vma_by_id[i] && vma_is_shared_maywrite(g_vma_by_id[i])) n++;
  return n;
}

void i_mmap_lock_write(address_space* m) {
  m->i_mmap_rwsem->down_write();
  g_write_locks_by_thread[rl::thread_index()]++;
}

void i_mmap_unlock_write(address_space* m) {
  // DESIGN invariant 6, checked whenever a writer is done with the mapping.
  VM_CHECK(m->ghost_i_mmap_writable == popcount_writable(m), "counter",
           "i_mmap_writable of mapping %s is %d but its tree holds %d shared writable VMAs", m->name,
           m->ghost_i_mmap_writable, popcount_writable(m));
  m->i_mmap_rwsem->up_write();
}

void i_mmap_lock_read(address_space* m) { m->i_mmap_rwsem->down_read(); }
void i_mmap_unlock_read(address_space* m) { m->i_mmap_rwsem->up_read(); }

// i_mmap_assert_write_locked (include/linux/fs.h): lockdep, on the ghost owner record.
static void i_mmap_assert_write_locked(address_space* m, const char* what, int vma) {
  VM_CHECK(m->i_mmap_rwsem->held_write_by_current(), "lock not held",
           "%s of vma %d in mapping %s without i_mmap_rwsem held for write", what, vma, m->name);
}

void __remove_shared_vm_struct(vm_area_struct* vma, address_space* mapping) {
  i_mmap_assert_write_locked(mapping, "removal", vma->id);
  if (vma_is_shared_maywrite(vma) && !mutant(Mutant::remove_skips_writable)) {
    int w = mapping->i_mmap_writable($);  // mapping_unmap_writable
    mapping->i_mmap_writable($) = w - 1;
    mapping->ghost_i_mmap_writable = w - 1;
  }
  unsigned tree = mapping->i_mmap($);  // vma_interval_tree_remove
  mm_struct* mm = vma->vm_mm;
  VM_CHECK(tree >> vma->id & 1, "exactly once", "vma %d removed from mapping %s but it is not in the tree (removed %d times before)",
           vma->id, mapping->name, mm->removed[vma->id]);
  mapping->i_mmap($) = tree & ~(1u << vma->id);
  mapping->ghost_i_mmap = tree & ~(1u << vma->id);
  mm->removed[vma->id]++;
}

void __vma_link_file(vm_area_struct* vma, address_space* mapping) {
  i_mmap_assert_write_locked(mapping, "insertion", vma->id);
  if (vma_is_shared_maywrite(vma)) {
    int w = mapping->i_mmap_writable($);  // mapping_allow_writable
    mapping->i_mmap_writable($) = w + 1;
    mapping->ghost_i_mmap_writable = w + 1;
  }
  unsigned tree = mapping->i_mmap($);  // vma_interval_tree_insert
  mapping->i_mmap($) = tree | 1u << vma->id;
  mapping->ghost_i_mmap = tree | 1u << vma->id;
}

void vma_link_file(vm_area_struct* vma) {
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
}

void unlink_file_vma_batch_event(unlink_vma_file_batch<vm_area_struct>* vb, batch_event ev) {
  // Ghost bookkeeping first, then the state is recorded (so that the specs see a violating
  // state too), then DESIGN invariants 1 and 2 are checked at this step.
  mm_struct* mm = g_exiting_mm[rl::thread_index()];
  const int n = std::min(vb->count, unlink_vma_file_batch<vm_area_struct>::ARRAY_SIZE);
  if (ev == BATCH_ADD && vb->count > 0) {
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
  if (mas->next >= mas->mm->nr) return nullptr;
  vm_area_struct* v = mas->mm->vmas[mas->next];
  if (v->vm_start > max) return nullptr;
  mas->next++;
  return v;
}

void free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long, unsigned long) {
  for (int i = 0; i < mas->mm->nr; i++) {
    vm_area_struct* v = mas->mm->vmas[i];
    if (v->vm_start >= addr && v->vm_end <= end) v->pgtables.store(PT_FREED, rl::memory_order_relaxed);
  }
}

void hugetlb_free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor,
                            unsigned long ceiling) {
  free_pgd_range(mas, addr, end, floor, ceiling);
}

void exit_mmap(mm_struct* mm) {
  if (mm->nr == 0) return;
  g_exiting_mm[rl::thread_index()] = mm;
  ma_state mas{mm};
  free_pgtables(&mas, mm->vmas[0], 0 /* FIRST_USER_ADDRESS */, 0 /* USER_PGTABLES_CEILING */, true,
                g_teardown_variant);
}

// What an rmap walker does to a VMA it finds: page_vma_mapped_walk reads its page tables.
static void touch_page_tables(vm_area_struct* v, const char* who) {
  VM_CHECK(v->pgtables.load(rl::memory_order_relaxed) == PT_PRESENT, "use-after-free",
           "%s touched page tables of vma %d after free_pgd_range", who, v->id);
}

static void walk_i_mmap(address_space* mapping, const char* who) {
  VM_CHECK(mapping->i_mmap_rwsem->held_read_by_current(), "lock not held", "%s reads i_mmap of %s without its read lock",
           who, mapping->name);
  unsigned tree = mapping->i_mmap($);
  for (int i = 0; i < MAX_VMAS; i++)
    if (tree >> i & 1) touch_page_tables(g_vma_by_id[i], who);
}

// Simplified: the kernel first tries i_mmap_trylock_read and, for try_lock walkers, gives up
// on contention; the model always takes the read lock, the case that reaches the page tables.
void rmap_walk_file(address_space* mapping) {
  i_mmap_lock_read(mapping);
  walk_i_mmap(mapping, "rmap walker");
  i_mmap_unlock_read(mapping);
}

void unmap_mapping_range(address_space* mapping) {
  i_mmap_lock_read(mapping);
  walk_i_mmap(mapping, "truncation (unmap_mapping_range)");
  i_mmap_unlock_read(mapping);
}
