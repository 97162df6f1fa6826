#include "proofs/state_text.hpp"

#include <algorithm>

std::string StateNamer::file(long long id) {
  if (id == 0) return "anon";
  auto it = files_.find(id);
  if (it != files_.end()) return it->second;
  size_t k = files_.size();
  std::string name = k < 26 ? std::string(1, char('A' + k)) : "F" + std::to_string(k);
  return files_[id] = name;
}

std::string StateNamer::mapping(long long id) {
  auto it = mappings_.find(id);
  if (it != mappings_.end()) return it->second;
  return mappings_[id] = "M" + std::to_string(mappings_.size() + 1);
}

template <typename Key, typename Value>
static std::string column(const std::string& label, const ConcreteState::Column& c, const std::set<long long>& focus,
                          Key key, Value value) {
  std::string s = label + ":";
  bool any = false;
  for (const auto& kv : c.at) {
    if (c.has_default && kv.second == c.dflt && !focus.count(kv.first)) continue;
    s += " " + key(kv.first) + "->" + value(kv.second);
    any = true;
  }
  if (c.has_default) s += any ? " (others " + value(c.dflt) + ")" : " all " + value(c.dflt);
  else if (!any) s += " none";
  return s;
}

std::string format_state(const ConcreteState& s, StateNamer& names, const std::string& indent) {
  auto num = [](long long x) { return std::to_string(x); };
  auto file = [&](long long x) { return names.file(x); };
  auto mapping = [&](long long x) { return names.mapping(x); };
  std::string slots;
  for (long long v : s.slots) slots += (slots.empty() ? "" : ",") + num(v);
  std::string out = indent + "count=" + num(s.count) + " vmas=[" + slots + "] lock_round_trips=" +
                    num(s.lock_round_trips) + " finalized=" + (s.finalized ? "true" : "false") + "\n";
  // Name the batch's files first so that A is vmas[0]'s file.
  for (long long v : s.slots)
    if (s.vm_file.at.count(v)) names.file(s.vm_file.at.at(v));
  out += indent + column("vm_file", s.vm_file, s.focus, num, file) + "\n";
  out += indent + column("f_mapping", s.f_mapping, {}, file, mapping) + "\n";
  out += indent + column("added", s.added, s.focus, num, num) + "   " + column("removed", s.removed, s.focus, num, num) +
         "\n";
  out += indent + "appends=" + num(s.appends) + " " + column("append_seq", s.append_seq, s.focus, num, num) +
         "   removals=" + num(s.removals) + " " + column("remove_seq", s.remove_seq, s.focus, num, num) + "\n";
  return out;
}

long long model_int(const z3::model& m, const z3::expr& e) {
  int64_t v = 0;
  z3::expr value = m.eval(e, true);
  if (value.is_bool()) return value.is_true();
  value.is_numeral_i64(v);
  return v;
}

// Indices the model gives an array explicitly, and its value everywhere else when known.
static void array_points(const z3::model& m, const z3::expr& array, std::set<long long>* ids, bool* has_default,
                         long long* dflt) {
  z3::expr v = m.eval(array, true);
  while (v.is_app() && v.decl().decl_kind() == Z3_OP_STORE) {
    ids->insert(model_int(m, v.arg(1)));
    v = v.arg(0);
  }
  if (v.is_app() && v.decl().decl_kind() == Z3_OP_CONST_ARRAY) {
    *has_default = true;
    *dflt = model_int(m, v.arg(0));
  } else if (v.is_app() && v.decl().decl_kind() == Z3_OP_AS_ARRAY) {
    z3::func_decl f(v.ctx(), Z3_get_as_array_func_decl(v.ctx(), v));
    if (!m.has_interp(f)) return;
    z3::func_interp fi = m.get_func_interp(f);
    for (unsigned i = 0; i < fi.num_entries(); i++) ids->insert(model_int(m, fi.entry(i).arg(0)));
    *has_default = true;
    *dflt = model_int(m, fi.else_value());
  }
}

static ConcreteState::Column fill(const z3::model& m, const z3::expr& array, const std::set<long long>& ids) {
  ConcreteState::Column c;
  std::set<long long> unused;
  array_points(m, array, &unused, &c.has_default, &c.dflt);
  for (long long id : ids) c.at[id] = model_int(m, z3::select(array, array.ctx().int_val((int64_t)id)));
  return c;
}

ConcreteState state_in_model(const z3::model& m, const BatchState& s, const std::vector<z3::expr>& focus,
                             bool only_focus) {
  ConcreteState r;
  r.count = model_int(m, s.count);
  r.lock_round_trips = model_int(m, s.lock_round_trips);
  r.appends = model_int(m, s.appends);
  r.removals = model_int(m, s.removals);
  r.finalized = model_int(m, s.finalized);
  const long long shown_slots = std::min<long long>(r.count, 2 * BATCH_SLOTS);
  for (long long i = 0; i < shown_slots; i++) {
    r.slots.push_back(model_int(m, z3::select(s.vmas, s.count.ctx().int_val((int64_t)i))));
    r.focus.insert(r.slots.back());
  }
  for (const z3::expr& v : focus) r.focus.insert(model_int(m, v));

  std::set<long long> vma_ids = r.focus, file_ids;
  bool unused_default;
  long long unused_value;
  if (!only_focus)
    for (const z3::expr* a : {&s.vm_file, &s.added, &s.removed, &s.append_seq, &s.remove_seq})
      array_points(m, *a, &vma_ids, &unused_default, &unused_value);
  r.vm_file = fill(m, s.vm_file, vma_ids);
  r.added = fill(m, s.added, vma_ids);
  r.removed = fill(m, s.removed, vma_ids);
  r.append_seq = fill(m, s.append_seq, vma_ids);
  r.remove_seq = fill(m, s.remove_seq, vma_ids);
  for (const auto& kv : r.vm_file.at)
    if (kv.second != 0) file_ids.insert(kv.second);
  if (!only_focus) array_points(m, s.f_mapping, &file_ids, &unused_default, &unused_value);
  file_ids.erase(0);
  r.f_mapping = fill(m, s.f_mapping, file_ids);
  r.f_mapping.has_default = false;  // mappings of files no VMA uses say nothing
  if (only_focus)
    for (ConcreteState::Column* c : {&r.vm_file, &r.added, &r.removed, &r.append_seq, &r.remove_seq})
      c->has_default = false;
  return r;
}

ConcreteState state_of_snapshot(const BatchSnapshot& s) {
  ConcreteState r;
  r.count = s.count;
  r.lock_round_trips = s.lock_round_trips;
  r.appends = s.appends;
  r.removals = s.removals;
  r.finalized = s.finalized;
  for (int i = 0; i < s.count && i < BATCH_SLOTS; i++) r.slots.push_back(s.vmas[i]);
  ConcreteState::Column* vma_columns[] = {&r.vm_file, &r.added, &r.removed, &r.append_seq, &r.remove_seq};
  const int* values[] = {s.vm_file, s.added, s.removed, s.append_seq, s.remove_seq};
  for (int c = 0; c < 5; c++) {
    vma_columns[c]->has_default = true;
    for (int v = 0; v < s.nvmas && v < SNAPSHOT_MAX_VMAS; v++) vma_columns[c]->at[v] = values[c][v];
  }
  for (int v = 0; v < s.nvmas && v < SNAPSHOT_MAX_VMAS; v++) r.focus.insert(v);
  for (int v = 0; v < s.nvmas && v < SNAPSHOT_MAX_VMAS; v++) {
    int f = s.vm_file[v];
    if (f > 0 && f < SNAPSHOT_MAX_FILES) r.f_mapping.at[f] = s.f_mapping[f];
  }
  return r;
}
