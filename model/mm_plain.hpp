// The kernel objects of free_pgtables without the model checker: plain C++, for running the
// very same teardown code (model/free_pgtables.hpp) over real process layouts and for counting
// lock round trips. Nothing here is concurrent.
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>
#include "model/free_pgtables.hpp"

namespace plain {

// Page-table pages by (level, base), for free_pgd_range without the checker (the tests).
struct page_tables {
  std::map<std::pair<int, unsigned long>, bool> present;  // false once freed
  std::vector<std::pair<int, unsigned long>> freed;       // in the order free_table ran
  int double_frees = 0;
  void populate(unsigned long start, unsigned long end, bool hugetlb = false) {
    for (pt_level l : {PUD_TABLE, PMD_TABLE, PTE_TABLE}) {
      if (l == PTE_TABLE && hugetlb) continue;
      for (unsigned long a = pt_base(l, start); a < end; a += pt_span(l)) {
        present[{l, a}] = true;
        if (a + pt_span(l) == 0) break;  // the top of the address space
      }
    }
  }
};
inline bool none_or_clear_bad(page_tables* pt, pt_level l, unsigned long addr) {
  auto it = pt->present.find({l, pt_base(l, addr)});
  return it == pt->present.end() || !it->second;
}
inline void free_table(page_tables* pt, pt_level l, unsigned long addr) {
  auto it = pt->present.find({l, pt_base(l, addr)});
  if (it == pt->present.end() || !it->second) pt->double_frees++;
  else it->second = false;
  pt->freed.push_back({l, pt_base(l, addr)});
}

// What one teardown did to the i_mmap locks.
struct teardown_counts {
  long write_locks = 0;         // i_mmap_lock_write round trips
  long removed = 0;             // VMAs removed from an i_mmap tree
  long batch_histogram[9] = {}; // batch sizes at unlink_file_vma_batch_process, [1, 2) .. [8, 9)
};

struct address_space {
  teardown_counts* counts = nullptr;  // where its lock round trips are counted
};

struct file {
  address_space* f_mapping = nullptr;
};

struct vm_area_struct {
  unsigned long vm_start = 0, vm_end = 0;
  file* vm_file = nullptr;  // NULL: anonymous
  bool hugetlb = false;
};

// The mm's VMAs in address order, walked like mas_find over the maple tree.
struct ma_state {
  const std::vector<vm_area_struct*>* vmas;
  size_t next = 1;  // index of the VMA mas_find returns next (free_pgtables starts at [0])
  page_tables* pt = nullptr;  // the mm's page tables, where they are modelled
};

inline vm_area_struct* mas_find(ma_state* mas, unsigned long max) {
  if (mas->next >= mas->vmas->size()) return nullptr;
  vm_area_struct* v = (*mas->vmas)[mas->next];
  if (v->vm_start > max) return nullptr;
  mas->next++;
  return v;
}

inline void i_mmap_lock_write(address_space* m) { m->counts->write_locks++; }
inline void i_mmap_unlock_write(address_space*) {}
inline void i_mmap_lock_read(address_space*) {}
inline void i_mmap_unlock_read(address_space*) {}
inline void __remove_shared_vm_struct(vm_area_struct*, address_space* m) { m->counts->removed++; }
inline void VM_WARN_ON_ONCE_mapping(bool, vm_area_struct*) {}
inline void vma_start_write(vm_area_struct*) {}
inline void unlink_anon_vmas(vm_area_struct*) {}
inline bool is_vm_hugetlb_page(const vm_area_struct* v) { return v->hugetlb; }
inline bool xa_is_zero(const vm_area_struct*) { return false; }
inline void free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor,
                           unsigned long ceiling) {
  if (mas->pt) ::free_pgd_range(mas->pt, addr, end, floor, ceiling);
}
inline void hugetlb_free_pgd_range(ma_state* mas, unsigned long addr, unsigned long end, unsigned long floor,
                                   unsigned long ceiling) {
  free_pgd_range(mas, addr, end, floor, ceiling);
}

inline void unlink_file_vma_batch_event(unlink_vma_file_batch<vm_area_struct>* vb, batch_event ev) {
  if (ev == BATCH_PROCESS && vb->count >= 1 && vb->count <= 8)
    vb->vmas[0]->vm_file->f_mapping->counts->batch_histogram[vb->count]++;
}

// Tear down a whole layout (VMAs in address order, every mapping counting into *counts).
inline void teardown(const std::vector<vm_area_struct*>& vmas, teardown_variant variant, page_tables* pt = nullptr,
                     unsigned long floor = FIRST_USER_ADDRESS, unsigned long ceiling = USER_PGTABLES_CEILING) {
  if (vmas.empty()) return;
  ma_state mas{&vmas, 1, pt};
  free_pgtables(&mas, vmas[0], floor, ceiling, true, variant);
}

}  // namespace plain
