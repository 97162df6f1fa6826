// Where the kernel code taken from the tree calls into the shim. Included after the extracted
// struct and the prototypes of the extracted functions (renamed kbody_NAME), before their
// bodies. Each call the kernel code makes is a macro passing the caller's function, file and
// line (the kernel's own, from #line), so that its row in a trace cites mm/vma.c:LINE.
// The batch functions are wrapped: the wrapper calls the kernel's body and then the model's
// ghost hook (unlink_file_vma_batch_event), so that the same checks (DESIGN invariants 1-3)
// run and the same batch states are recorded as for model/vma_batch.hpp.
#pragma once
#include <cstdarg>
#include <cstring>

// A history row at the kernel's call site (a trace row, not a scheduling point).
inline void kshim_row(const char* caller, const char* file, int line, const char* fmt, ...) {
  if (std::strncmp(caller, "kbody_", 6) == 0) caller += 6;  // the kernel's name, not the shim's
  va_list ap;
  va_start(ap, fmt);
  history_row_v(rl::debug_info(caller, file, line), fmt, ap);
  va_end(ap);
}
#define KSHIM_HERE __func__, __FILE__, __LINE__
#define KSHIM_SITE const char *caller, const char *file, int line

inline int kshim_vma_id(const vm_area_struct* v) { return v ? v->id : -1; }
inline const char* kshim_mapping_name(const address_space* m) { return m ? m->name : "(null)"; }

// The kernel's batch as the model's (count and the slots that exist: at most 8).
inline model_batch kshim_model_view(const struct unlink_vma_file_batch* vb) {
  model_batch m;
  m.count = vb->count;
  for (int i = 0; i < model_batch::ARRAY_SIZE; i++) m.vmas[i] = i < vb->count ? vb->vmas[i] : nullptr;
  return m;
}

// The ghost hook wants each step once, in the model's order: process reports PROCESS (with the
// batch it processed) and then the INIT of its closing unlink_file_vma_batch_init.
inline int& kshim_in_process() {
  static int depth[8];
  return depth[rl::thread_index()];
}
inline bool& kshim_init_in_process() {
  static bool called[8];
  return called[rl::thread_index()];
}
inline void kshim_event(struct unlink_vma_file_batch* vb, batch_event ev) {
  model_batch m = kshim_model_view(vb);
  unlink_file_vma_batch_event(&m, ev);
}

inline void kshim_batch_init(struct unlink_vma_file_batch* vb, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls unlink_file_vma_batch_init");
  kbody_unlink_file_vma_batch_init(vb);
  if (kshim_in_process())
    kshim_init_in_process() = true;
  else
    kshim_event(vb, BATCH_INIT);
}

inline void kshim_batch_process(struct unlink_vma_file_batch* vb, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls unlink_file_vma_batch_process (count=%d)", vb->count);
  model_batch before = kshim_model_view(vb);
  kshim_in_process()++;
  kshim_init_in_process() = false;
  kbody_unlink_file_vma_batch_process(vb);
  kshim_in_process()--;
  unlink_file_vma_batch_event(&before, BATCH_PROCESS);
  if (kshim_init_in_process()) kshim_event(vb, BATCH_INIT);
}

// add reports ADD when it appended (the batch changed, or it flushed first); an anonymous VMA
// leaves the batch as it was, and the model's add reports nothing for it either.
inline void kshim_batch_add(struct unlink_vma_file_batch* vb, struct vm_area_struct* vma, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls unlink_file_vma_batch_add(vma %d)", kshim_vma_id(vma));
  const int count = vb->count;
  struct vm_area_struct* const last = count > 0 && count <= 8 ? vb->vmas[count - 1] : nullptr;
  const int round_trips = g_exiting_mm[rl::thread_index()] ? g_exiting_mm[rl::thread_index()]->batch_round_trips : 0;
  kbody_unlink_file_vma_batch_add(vb, vma);
  // Past the array, the kernel code has already stored into the overflow zone: said here, at
  // the kernel's call, before the model's hook reports the same count.
  if (vb->count > (int)ARRAY_SIZE(vb->vmas))
    vm_fail("bounded count", rl::debug_info(caller, file, line),
            "batch count is %d after unlink_file_vma_batch_add (called at %s:%d): it stored vmas[%d], past the array",
            vb->count, file, line, vb->count - 1);
  const bool flushed = g_exiting_mm[rl::thread_index()] && g_exiting_mm[rl::thread_index()]->batch_round_trips != round_trips;
  const bool changed = vb->count != count || (vb->count > 0 && vb->count <= 8 && vb->vmas[vb->count - 1] != last);
  if (flushed || changed) kshim_event(vb, BATCH_ADD);
}

inline void kshim_batch_final(struct unlink_vma_file_batch* vb, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls unlink_file_vma_batch_final (count=%d)", vb->count);
  kbody_unlink_file_vma_batch_final(vb);
  kshim_event(vb, BATCH_FINAL);
}

inline void kshim_unlink_file_vma(struct vm_area_struct* vma, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls unlink_file_vma(vma %d)", kshim_vma_id(vma));
  kbody_unlink_file_vma(vma);
}

inline void kshim_remove_shared_vm_struct(struct vm_area_struct* vma, struct address_space* mapping, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls __remove_shared_vm_struct(vma %d, mapping %s)", kshim_vma_id(vma),
            kshim_mapping_name(mapping));
  kbody___remove_shared_vm_struct(vma, mapping);
}

// i_mmap_lock_write / i_mmap_unlock_write (include/linux/fs.h): the model's, on the scenario's
// rw_semaphore (abstract or faithful).
inline void kshim_i_mmap_lock_write(struct address_space* mapping, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls i_mmap_lock_write(mapping %s)", kshim_mapping_name(mapping));
  i_mmap_lock_write(mapping);
}
inline void kshim_i_mmap_unlock_write(struct address_space* mapping, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls i_mmap_unlock_write(mapping %s)", kshim_mapping_name(mapping));
  i_mmap_unlock_write(mapping);
}

// mapping_unmap_writable (include/linux/fs.h): atomic_dec of i_mmap_writable (the model's).
inline void kshim_mapping_unmap_writable(struct address_space* mapping, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls mapping_unmap_writable(mapping %s)", kshim_mapping_name(mapping));
  mapping_unmap_writable_removed(mapping);
}

// vma_interval_tree_remove (mm/interval_tree.c): the model's tree of one mapping is one word;
// the root passed must be the VMA's own mapping's.
inline void kshim_vma_interval_tree_remove(struct vm_area_struct* vma, rl::var<unsigned>* root, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls vma_interval_tree_remove(vma %d)", kshim_vma_id(vma));
  address_space* mapping = vma->vm_file ? vma->vm_file->f_mapping : nullptr;
  if (!mapping || &mapping->i_mmap != root)
    vm_fail("same mapping", rl::debug_info(caller, file, line),
            "vma %d removed from the i_mmap tree of a mapping it does not map", kshim_vma_id(vma));
  vma_interval_tree_remove(vma, mapping);
}

// VM_WARN_ON_ONCE (include/linux/mmdebug.h), as with CONFIG_DEBUG_VM: a check that fails the
// interleaving, citing the kernel's line.
inline void kshim_vm_warn_on_once(bool cond, const char* text, KSHIM_SITE) {
  if (cond) vm_fail("same mapping", rl::debug_info(caller, file, line), "VM_WARN_ON_ONCE(%s) at %s:%d", text, file, line);
}

// free_pgd_range (mm/memory.c) and hugetlb_free_pgd_range (free_pgd_range on x86-64), on the
// gather's mm: the tree's own when the extraction took free_pgd_range .. free_pte_range
// (KSHIM_TREE_PGTABLES, over model/kshim/pgtable.h), else the model's (model/pgtable.hpp).
inline void kshim_tree_or_model_free_pgd_range(struct mmu_gather* tlb, unsigned long addr, unsigned long end,
                                               unsigned long floor, unsigned long ceiling) {
#ifdef KSHIM_TREE_PGTABLES
  kshim_freeing_tables() = &tlb->mm->pgtables;
  kbody_free_pgd_range(tlb, addr, end, floor, ceiling);
  kshim_freeing_tables() = nullptr;
#else
  free_pgd_range(tlb->mas, addr, end, floor, ceiling);
#endif
}
inline void kshim_free_pgd_range(struct mmu_gather* tlb, unsigned long addr, unsigned long end, unsigned long floor,
                                 unsigned long ceiling, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls free_pgd_range(%#lx, %#lx, floor %#lx, ceiling %#lx)", addr, end, floor, ceiling);
  kshim_tree_or_model_free_pgd_range(tlb, addr, end, floor, ceiling);
}
inline void kshim_hugetlb_free_pgd_range(struct mmu_gather* tlb, unsigned long addr, unsigned long end,
                                         unsigned long floor, unsigned long ceiling, KSHIM_SITE) {
  kshim_row(caller, file, line, "calls hugetlb_free_pgd_range(%#lx, %#lx, floor %#lx, ceiling %#lx)", addr, end, floor,
            ceiling);
  kshim_tree_or_model_free_pgd_range(tlb, addr, end, floor, ceiling);
}

#ifdef KSHIM_TREE_PGTABLES
// pte_free_tlb, pmd_free_tlb, pud_free_tlb (include/asm-generic/tlb.h): clear the entry and queue
// the table it points to on the mmu_gather, in one step (model/kshim/pgtable.h); p4d_free_tlb:
// folded, nothing.
inline void kshim_free_tlb(pt_level l, unsigned long addr, const char* what, KSHIM_SITE) {
  kshim_row(caller, file, line, "%s: frees %s table %#lx", what, pt_level_name(l), pt_base(l, addr));
  free_table(kshim_tables(), l, addr);
}
#define pte_free_tlb(tlb, pte, at) \
  ((void)(tlb), (void)(at), kshim_free_tlb(PTE_TABLE, kshim_pmds::addr(pte), "pte_free_tlb", KSHIM_HERE))
#define pmd_free_tlb(tlb, pmd, at) \
  ((void)(tlb), (void)(at), kshim_free_tlb(PMD_TABLE, kshim_pmds::addr(pmd), "pmd_free_tlb", KSHIM_HERE))
#define pud_free_tlb(tlb, pud, at) \
  ((void)(tlb), (void)(at), kshim_free_tlb(PUD_TABLE, kshim_puds::addr(pud), "pud_free_tlb", KSHIM_HERE))
#define p4d_free_tlb(tlb, p4d, at) ((void)(tlb), (void)(p4d), (void)(at))
#define free_pte_range(tlb, pmd, addr) kbody_free_pte_range(tlb, pmd, addr)
#define free_pmd_range(tlb, pud, addr, end, floor, ceiling) kbody_free_pmd_range(tlb, pud, addr, end, floor, ceiling)
#define free_pud_range(tlb, p4d, addr, end, floor, ceiling) kbody_free_pud_range(tlb, p4d, addr, end, floor, ceiling)
#define free_p4d_range(tlb, pgd, addr, end, floor, ceiling) kbody_free_p4d_range(tlb, pgd, addr, end, floor, ceiling)
#endif

#define unlink_file_vma_batch_init(vb) kshim_batch_init(vb, KSHIM_HERE)
#define unlink_file_vma_batch_process(vb) kshim_batch_process(vb, KSHIM_HERE)
#define unlink_file_vma_batch_add(vb, vma) kshim_batch_add(vb, vma, KSHIM_HERE)
#define unlink_file_vma_batch_final(vb) kshim_batch_final(vb, KSHIM_HERE)
#define unlink_file_vma(vma) kshim_unlink_file_vma(vma, KSHIM_HERE)
#define __remove_shared_vm_struct(vma, mapping) kshim_remove_shared_vm_struct(vma, mapping, KSHIM_HERE)
#define i_mmap_lock_write(mapping) kshim_i_mmap_lock_write(mapping, KSHIM_HERE)
#define i_mmap_unlock_write(mapping) kshim_i_mmap_unlock_write(mapping, KSHIM_HERE)
#define mapping_unmap_writable(mapping) kshim_mapping_unmap_writable(mapping, KSHIM_HERE)
#define vma_interval_tree_remove(vma, root) kshim_vma_interval_tree_remove(vma, root, KSHIM_HERE)
#define VM_WARN_ON_ONCE(cond) kshim_vm_warn_on_once(!!(cond), #cond, KSHIM_HERE)
#define free_pgd_range(tlb, addr, end, floor, ceiling) kshim_free_pgd_range(tlb, addr, end, floor, ceiling, KSHIM_HERE)
#define hugetlb_free_pgd_range(tlb, addr, end, floor, ceiling) \
  kshim_hugetlb_free_pgd_range(tlb, addr, end, floor, ceiling, KSHIM_HERE)
// flush_dcache_mmap_lock / _unlock (include/linux/cacheflush.h): nothing on x86-64.
#define flush_dcache_mmap_lock(mapping) ((void)(mapping))
#define flush_dcache_mmap_unlock(mapping) ((void)(mapping))
