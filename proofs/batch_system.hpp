// The unlink_vma_file_batch of mm/mmap.c (commit 3577dbb19241) as a transition system
// over Z3 terms: the state the specs talk about, the initial state, and the steps
// add / process / final, optionally with one seeded bug (a batch mutant) switched on.
#pragma once
#include <z3++.h>
#include <string>
#include <vector>
#include "proofs/batch_state.hpp"

enum class BatchMutant {
  none,
  no_flush_on_other_file,  // add flushes only when the batch is full
  no_flush_when_full,      // add flushes only on another vm_file
  anon_vma_added,          // add does not skip vm_file == NULL
  process_skips_last,      // process removes only count - 1 VMAs
  final_forgotten,         // final does nothing
  flush_compares_mapping,  // add compares f_mapping instead of vm_file
  double_remove,           // process removes vmas[0] twice
};
struct BatchMutantInfo {
  BatchMutant id;
  const char* name;  // same names as the model's mutants
  const char* description;
};
const std::vector<BatchMutantInfo>& batch_mutants();
// False when no batch mutant (nor "none") has that name.
bool find_batch_mutant(const std::string& name, BatchMutant* out);

// One value per name of the spec vocabulary. Arrays are (Array Int Int).
struct BatchState {
  z3::expr count;             // vb->count
  z3::expr vmas;              // slot -> VMA id
  z3::expr vm_file;           // VMA id -> file id, 0 = anonymous; frozen
  z3::expr f_mapping;         // file id -> mapping id; frozen
  z3::expr added;             // VMA id -> times add appended it to vmas[] (never an anonymous one)
  z3::expr removed;           // VMA id -> times removed from its mapping's i_mmap
  z3::expr lock_round_trips;  // i_mmap_lock_write / unlock pairs taken by process
  z3::expr finalized;         // final has returned and nothing was appended since
  // Ghost state for the removal order: appends numbers the VMAs as they enter vmas[],
  // removals numbers the removals; each VMA remembers its own numbers.
  z3::expr appends;     // VMAs appended to vmas[] so far
  z3::expr append_seq;  // VMA id -> value of appends once it was appended, 0 if never
  z3::expr removals;    // removals made so far
  z3::expr remove_seq;  // VMA id -> value of removals after its latest removal, 0 if never

  explicit BatchState(z3::context& c);
};

enum class FieldSort { Int, IntArray, Bool };
struct StateField {
  const char* name;
  z3::expr BatchState::*member;
  FieldSort sort;
  bool frozen;  // never changed by a step
};
const std::vector<StateField>& state_fields();
z3::sort field_sort(z3::context& c, FieldSort s);

// Every field a fresh constant named prefix + field name ("" gives the spec vocabulary).
BatchState fresh_state(z3::context& c, const std::string& prefix);
// Field by field: c ? a : b.
BatchState ite(const z3::expr& c, const BatchState& a, const BatchState& b);
// Every field of a equals the same field of b.
z3::expr equal(const BatchState& a, const BatchState& b);

class BatchSystem {
 public:
  // slots_scanned bounds the loop of process: the array size for inductive proofs (whose
  // pre-states have count <= 8), the trace length for traces that may overflow it.
  BatchSystem(z3::context& c, BatchMutant m, int slots_scanned = BATCH_SLOTS);

  // State right after unlink_file_vma_batch_init: free carries the VMA layout (vm_file,
  // f_mapping) and the uninitialised vmas[] contents.
  BatchState initial(const BatchState& free) const;
  BatchState add(const BatchState& s, const z3::expr& vma) const;
  BatchState process(const BatchState& s) const;
  BatchState finalize(const BatchState& s) const;  // unlink_file_vma_batch_final

  // Conditions under which the kernel calls each step.
  z3::expr in_bounds(const BatchState& s) const;                         // 0 <= count <= 8: the C array
  // free_pgtables visits a VMA once (vacuous for an anonymous VMA, which add skips whole).
  z3::expr add_guard(const BatchState& s, const z3::expr& vma) const;
  z3::expr process_guard(const BatchState& s) const;                     // callers only process count > 0

 private:
  BatchState remove_one(const BatchState& s, const z3::expr& vma) const;
  z3::context& c_;
  BatchMutant m_;
  int slots_scanned_;
};
