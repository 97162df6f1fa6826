// The common world of the hugetlb scenarios where two processes map the same PUD-aligned
// gigabyte of a hugetlbfs file shared: the first with its PMD table filled, the second still to
// take its faults there (its page-table slots reserved). Each VMA has its hugetlb vma_lock.
#pragma once
#include "model/hugetlb.hpp"
#include "verify/scenarios/teardown_world.hpp"

struct hugetlb_two_mappers {
  static constexpr layout_vma kFirst[1] = {{0x7f4000000000, 0x7f4040000000, 1, true, true}};
  static constexpr layout_vma kSecond[1] = {{0x7f8000000000, 0x7f8040000000, 1, true, true}};
  static constexpr layout_file kFiles[1] = {{"/dev/hugepages/pool", 1}};

  teardown_world<rwsem_abstract> w;
  hugetlb_vma_lock first_lock{"hugetlb vma_lock of the first process"};
  hugetlb_vma_lock second_lock{"hugetlb vma_lock of the faulting process"};
  mm_struct *first, *second;

  hugetlb_two_mappers() {
    w.set_files(kFiles, 1);
    first = w.add_mm("first process", kFirst, 1);
    second = w.add_mm("faulting process", kSecond, 1, false);
    first->vmas[0]->vm_private_data = &first_lock;
    second->vmas[0]->vm_private_data = &second_lock;
  }
};
