#include "proofs/batch_system.hpp"

const std::vector<BatchMutantInfo>& batch_mutants() {
  static const std::vector<BatchMutantInfo> list = {
      {BatchMutant::no_flush_on_other_file, "batch_no_flush_on_other_file",
       "add appends a VMA of another file without processing the batch first"},
      {BatchMutant::no_flush_when_full, "batch_no_flush_when_full",
       "add appends to a full batch without processing it first"},
      {BatchMutant::anon_vma_added, "batch_anon_vma_added", "add does not skip a VMA with vm_file == NULL"},
      {BatchMutant::process_skips_last, "batch_process_skips_last", "process removes only count - 1 VMAs"},
      {BatchMutant::final_forgotten, "batch_final_forgotten", "final does not process what is left"},
      {BatchMutant::flush_compares_mapping, "batch_flush_compares_mapping",
       "add compares f_mapping instead of vm_file to decide a flush"},
      {BatchMutant::double_remove, "batch_double_remove", "process removes vmas[0] twice"},
  };
  return list;
}

bool find_batch_mutant(const std::string& name, BatchMutant* out) {
  if (name == "none") {
    *out = BatchMutant::none;
    return true;
  }
  for (const BatchMutantInfo& m : batch_mutants())
    if (name == m.name) {
      *out = m.id;
      return true;
    }
  return false;
}

BatchState::BatchState(z3::context& c)
    : count(c.int_val(0)), vmas(c.int_val(0)), vm_file(c.int_val(0)), f_mapping(c.int_val(0)),
      added(c.int_val(0)), removed(c.int_val(0)), lock_round_trips(c.int_val(0)), finalized(c.bool_val(false)),
      appends(c.int_val(0)), append_seq(c.int_val(0)), removals(c.int_val(0)), remove_seq(c.int_val(0)) {}

const std::vector<StateField>& state_fields() {
  using F = FieldSort;
  static const std::vector<StateField> list = {
      {"count", &BatchState::count, F::Int, false},
      {"vmas", &BatchState::vmas, F::IntArray, false},
      {"vm_file", &BatchState::vm_file, F::IntArray, true},
      {"f_mapping", &BatchState::f_mapping, F::IntArray, true},
      {"added", &BatchState::added, F::IntArray, false},
      {"removed", &BatchState::removed, F::IntArray, false},
      {"lock_round_trips", &BatchState::lock_round_trips, F::Int, false},
      {"finalized", &BatchState::finalized, F::Bool, false},
      {"appends", &BatchState::appends, F::Int, false},
      {"append_seq", &BatchState::append_seq, F::IntArray, false},
      {"removals", &BatchState::removals, F::Int, false},
      {"remove_seq", &BatchState::remove_seq, F::IntArray, false},
  };
  return list;
}

z3::sort field_sort(z3::context& c, FieldSort s) {
  switch (s) {
    case FieldSort::Int: return c.int_sort();
    case FieldSort::Bool: return c.bool_sort();
    case FieldSort::IntArray: break;
  }
  return c.array_sort(c.int_sort(), c.int_sort());
}

BatchState fresh_state(z3::context& c, const std::string& prefix) {
  BatchState s(c);
  for (const StateField& f : state_fields())
    s.*f.member = c.constant((prefix + f.name).c_str(), field_sort(c, f.sort));
  return s;
}

BatchState ite(const z3::expr& c, const BatchState& a, const BatchState& b) {
  BatchState r = a;
  for (const StateField& f : state_fields()) {
    const z3::expr &x = a.*f.member, &y = b.*f.member;
    // Sharing the unchanged fields keeps the terms of long traces small.
    if (!z3::eq(x, y)) r.*f.member = z3::ite(c, x, y);
  }
  return r;
}

z3::expr equal(const BatchState& a, const BatchState& b) {
  z3::expr all = a.count.ctx().bool_val(true);
  for (const StateField& f : state_fields())
    if (!z3::eq(a.*f.member, b.*f.member)) all = all && a.*f.member == b.*f.member;
  return all;
}

BatchSystem::BatchSystem(z3::context& c, BatchMutant m, int slots_scanned)
    : c_(c), m_(m), slots_scanned_(slots_scanned < BATCH_SLOTS ? BATCH_SLOTS : slots_scanned) {}

BatchState BatchSystem::initial(const BatchState& free) const {
  z3::expr zeros = z3::const_array(c_.int_sort(), c_.int_val(0));
  BatchState s = free;
  s.count = c_.int_val(0);
  s.added = s.removed = s.append_seq = s.remove_seq = zeros;
  s.lock_round_trips = s.appends = s.removals = c_.int_val(0);
  s.finalized = c_.bool_val(false);
  return s;
}

z3::expr BatchSystem::in_bounds(const BatchState& s) const { return 0 <= s.count && s.count <= BATCH_SLOTS; }

z3::expr BatchSystem::add_guard(const BatchState& s, const z3::expr& vma) const {
  return z3::select(s.added, vma) == 0;
}

z3::expr BatchSystem::process_guard(const BatchState& s) const { return s.count > 0; }

// __remove_shared_vm_struct(vma, mapping), with the ghost removal numbering.
BatchState BatchSystem::remove_one(const BatchState& s, const z3::expr& vma) const {
  BatchState r = s;
  r.removed = z3::store(s.removed, vma, z3::select(s.removed, vma) + 1);
  r.removals = s.removals + 1;
  r.remove_seq = z3::store(s.remove_seq, vma, r.removals);
  return r;
}

BatchState BatchSystem::process(const BatchState& s) const {
  // i_mmap_lock_write(vmas[0]->vm_file->f_mapping): one round trip for the whole batch.
  z3::expr to_remove = m_ == BatchMutant::process_skips_last ? s.count - 1 : s.count;
  BatchState r = s;
  for (int i = 0; i < slots_scanned_; i++) r = ite(i < to_remove, remove_one(r, z3::select(s.vmas, i)), r);
  if (m_ == BatchMutant::double_remove) r = ite(s.count > 0, remove_one(r, z3::select(s.vmas, 0)), r);
  r.lock_round_trips = s.lock_round_trips + 1;
  r.count = c_.int_val(0);  // unlink_file_vma_batch_init
  return r;
}

// `added` and `finalized` as the model defines them (model/mm.cpp, at the append): an
// anonymous VMA that add skips leaves the whole state as it was.
BatchState BatchSystem::add(const BatchState& s, const z3::expr& vma) const {
  z3::expr file = z3::select(s.vm_file, vma);
  z3::expr skipped = m_ == BatchMutant::anon_vma_added ? c_.bool_val(false) : file == 0;
  z3::expr first_file = z3::select(s.vm_file, z3::select(s.vmas, 0));
  z3::expr differs = m_ == BatchMutant::flush_compares_mapping
                         ? z3::select(s.f_mapping, first_file) != z3::select(s.f_mapping, file)
                         : first_file != file;
  z3::expr other_file = m_ == BatchMutant::no_flush_on_other_file ? c_.bool_val(false) : s.count > 0 && differs;
  z3::expr full = m_ == BatchMutant::no_flush_when_full ? c_.bool_val(false) : s.count == BATCH_SLOTS;
  BatchState flushed = ite(other_file || full, process(s), s);

  BatchState appended = flushed;
  appended.vmas = z3::store(flushed.vmas, flushed.count, vma);
  appended.count = flushed.count + 1;
  appended.added = z3::store(flushed.added, vma, z3::select(flushed.added, vma) + 1);
  appended.finalized = c_.bool_val(false);
  appended.appends = flushed.appends + 1;
  appended.append_seq = z3::store(flushed.append_seq, vma, appended.appends);
  return ite(skipped, s, appended);
}

BatchState BatchSystem::finalize(const BatchState& s) const {
  BatchState r = m_ == BatchMutant::final_forgotten ? s : ite(s.count > 0, process(s), s);
  r.finalized = c_.bool_val(true);
  return r;
}
