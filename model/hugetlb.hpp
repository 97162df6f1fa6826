// hugetlb PMD sharing (mm/hugetlb.c; x86-64's ARCH_WANT_HUGE_PMD_SHARE, so
// CONFIG_HUGETLB_PMD_PAGE_TABLE_SHARING), reduced to what it does to i_mmap and the page
// tables. A shared hugetlbfs mapping that covers a whole PUD-aligned 1 GiB may map another
// process's PMD table for it instead of its own: huge_pmd_share finds that table through i_mmap
// under i_mmap_lock_read and counts itself in the table's pt_share_count; huge_pmd_unshare,
// under i_mmap_lock_write and the VMA's hugetlb vma_lock, clears the pud entry of a process that
// is not the table's last user; the last user frees the table in free_pgtables. A VMA can be
// shared from only while it has its vma_lock: the final zap (exit, munmap) frees that lock
// before it drops i_mmap_rwsem, so that nobody starts sharing a table that free_pgtables will
// free once the VMA is unlinked. The lock order is the hugetlb vma_lock, then i_mmap_rwsem;
// truncation, which holds i_mmap_rwsem first, only try-locks the vma_lock.
//
// Simplified:
//  - 2 MiB pages only, so every entry of a hugetlb PMD table is a huge leaf; the entries of a
//    PMD table are one word (page_tables.hpp's `ptes`), so a zap clears a whole 1 GiB in one
//    step and a fault writes one entry in one step.
//  - The huge pages, reservations, the page-cache lookup and hugetlb_fault_mutex are left out:
//    a fault allocates its tables (or shares one) and writes its entry, nothing else.
//  - The PMD table's lock (huge_pte_lock, the split PMD lock) is left out: every writer of a
//    shared table's entries here also holds the vma_lock or i_mmap_rwsem that excludes the
//    others, so it would order nothing more; a bug that drops one of those is still seen.
//  - page_table_shareable's vm_flags test is always true (the scenarios' VMAs have equal
//    flags), and userfaultfd's uffd_disable_huge_pmd_share is not modelled.
//  - tlb_flush_unshared_tables' IPI (tlb_remove_table_sync_one) is a grace period: no scenario
//    has a lockless walker beside sharing, so it is elided (model/rcu.hpp).
#pragma once
#include "model/mm.hpp"
#include "model/rwsem_abstract.hpp"

// struct hugetlb_vma_lock (include/linux/hugetlb.h): the rw_semaphore a shareable hugetlb VMA's
// faults hold for read and its zaps for write.
struct hugetlb_vma_lock {
  rwsem_abstract rw_sema;
  // vma->vm_private_data still points here. Cleared under the lock and i_mmap_rwsem by the final
  // zap, and read by huge_pmd_share in another process's VMA: instrumented.
  rl::var<bool> attached;
  explicit hugetlb_vma_lock(const char* name);
};

// Ghosts, per iteration, for the scenarios' reached windows: a fault shared another process's
// PMD table; a zap unshared one; huge_pmd_share met a VMA in i_mmap whose vma_lock the final zap
// had freed (the window the lock's freeing protects); truncation found a VMA's lock taken; a
// fault that found a table to share lost the race to populate its pud entry.
inline bool g_hugetlb_pmd_shared = false, g_hugetlb_unshared = false, g_hugetlb_share_refused = false,
            g_hugetlb_vma_lock_contended = false, g_hugetlb_share_lost_race = false;
void hugetlb_reset_ghosts();

// hugetlb_fault (mm/hugetlb.c) of a task of vma's mm at addr: under the VMA's vma_lock for read,
// huge_pte_alloc (pud_alloc, then huge_pmd_share when want_pmd_share and the pud entry is
// none, else pmd_alloc), then the huge PMD entry written (hugetlb_no_page's set_huge_pte_at).
void hugetlb_fault(vm_area_struct* vma, unsigned long addr);

// unmap_vmas' hugetlb zap (mm/memory.c, mm/hugetlb.c) of the whole of vma, final (exit, munmap:
// ZAP_FLAG_UNMAP): __hugetlb_zap_begin (the range widened to whole PUDs, the vma_lock for write,
// i_mmap_lock_write), __unmap_hugepage_range (each PMD table unshared if shared, else its
// entries cleared; huge_pmd_unshare_flush), __hugetlb_zap_end (the vma_lock freed, then
// i_mmap_unlock_write).
void unmap_hugetlb_vma_final(vm_area_struct* vma);

// hugetlb_vmtruncate / hugetlbfs_punch_hole (fs/hugetlbfs/inode.c) of the whole file: under
// i_mmap_lock_write, hugetlb_vmdelete_list: every VMA of i_mmap whose vma_lock it can try-lock
// for write is zapped (unmap_hugepage_range, not final); a VMA whose lock is taken is skipped
// (its fault will see the truncated size).
void hugetlb_vmtruncate(address_space* mapping);
