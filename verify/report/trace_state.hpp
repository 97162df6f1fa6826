// The kernel state a counterexample's rows lead to, folded from the rows themselves (no run
// needed): the batch, who holds each lock, each faithful rw_semaphore's count word and wait
// list (the hand model's `wait_list` rows, or the kernel code's list_head links followed from
// `sem->wait_list`), and every page table whose entry a row wrote. The text trace's `state`
// column and the HTML report's swimlanes show it.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>
#include "verify/search/result.hpp"

class TraceState {
 public:
  // Apply one row; the changes it made, each "WHAT: NOW" ("batch: count=1 vmas=[vma 0] file A",
  // "i_mmap_rwsem of A: held exclusively by T0", "PMD table 0x... of P: FREED").
  std::vector<std::string> apply(const TraceEvent& e);
  // Everything known after the rows applied so far, "; "-separated: the batch, the locks not
  // free, the count words, the wait lists, the tables; "" before any of them.
  std::string summary() const;

 private:
  std::string lock_change(const TraceEvent& e);
  std::string holders(const std::string& lock) const;
  std::vector<std::string> kernel_wait_lists(const TraceEvent& e);

  // Parts of the summary by kind (the order summary() lists them in), each by its object.
  enum Kind { batch, lock, count, wait_list, table, kKinds };
  std::map<std::string, std::string> parts_[kKinds];
  std::map<std::string, int> writer_;                  // lock -> thread holding it exclusively
  std::map<std::string, std::multiset<int>> readers_;  // lock -> threads holding it shared
  static constexpr size_t kMaxLinks = 4096, kMaxHeads = 16, kMaxObjectName = 256;
  std::map<std::string, std::string> links_;           // kernel list_head word -> what it points to
  std::set<std::string> heads_;                        // the semaphores whose wait list head was written
  std::map<int, std::string> slowpath_;                // thread -> "reader" / "writer", by its slowpath
};
