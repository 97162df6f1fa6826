// A counterexample to an induction step is a state satisfying quantified hypotheses over
// whole arrays; Z3 4.8 often diverges looking for one (its proofs of unsat come fast). So a
// counterexample is first sought among small states: arrays that differ from a default at
// SMALL_IDS indices, the batch and the added VMA among those ids, and each universally
// quantified hypothesis replaced by its instances at those ids and one more (standing for
// every other). That search is quantifier-free and quick; what it finds is then checked
// against the hypotheses as written, so only genuine counterexamples are reported.
#include "proofs/small_counterexample.hpp"

#include <set>
#include "proofs/proof_steps.hpp"

static const int SMALL_IDS = 10;  // a full batch, the added VMA, and one more
static const unsigned SEARCH_MS = 5000;

static BatchState small_state(z3::context& c, const std::string& prefix) {
  BatchState s = fresh_state(c, prefix);
  for (const StateField& f : state_fields()) {
    if (f.sort != FieldSort::IntArray) continue;
    std::string name = prefix + f.name;
    int size = std::string(f.name) == "vmas" ? BATCH_SLOTS + 1 : SMALL_IDS;
    z3::expr a = z3::const_array(c.int_sort(), c.int_const((name + "[*]").c_str()));
    for (int i = 0; i < size; i++) a = z3::store(a, i, c.int_const((name + "[" + std::to_string(i) + "]").c_str()));
    s.*f.member = a;
  }
  return s;
}

// h with each universally quantified conjunct over Int replaced by its instances at terms.
static z3::expr instantiate_foralls(const z3::expr& h, const z3::expr_vector& terms) {
  z3::context& c = h.ctx();
  if (h.is_app() && h.decl().decl_kind() == Z3_OP_AND) {
    z3::expr_vector parts(c);
    for (unsigned i = 0; i < h.num_args(); i++) parts.push_back(instantiate_foralls(h.arg(i), terms));
    return z3::mk_and(parts);
  }
  if (!h.is_quantifier() || !h.is_forall()) return h;
  const unsigned vars = Z3_get_quantifier_num_bound(c, h);
  for (unsigned v = 0; v < vars; v++)
    if (z3::sort(c, Z3_get_quantifier_bound_sort(c, h, v)).sort_kind() != Z3_INT_SORT) return h;
  z3::expr_vector instances(c);
  std::vector<unsigned> pick(vars, 0);
  for (bool more = true; more;) {
    z3::expr_vector values(c);
    for (unsigned v = 0; v < vars; v++) values.push_back(terms[pick[v]]);
    z3::expr body = h.body();
    instances.push_back(instantiate_foralls(body.substitute(values), terms));
    more = false;
    for (unsigned v = 0; v < vars && !more; v++) {
      more = ++pick[v] < terms.size();
      if (!more) pick[v] = 0;
    }
  }
  return z3::mk_and(instances);
}

// The state s denotes in m, as terms of constants only.
static BatchState concrete(const z3::model& m, const BatchState& s) {
  BatchState r = s;
  for (const StateField& f : state_fields()) r.*f.member = m.eval(s.*f.member, true);
  return r;
}

SmallCounterexamples::SmallCounterexamples(z3::context& c, const Hypotheses& hypotheses, const z3::expr& vma)
    : c_(c),
      hypotheses_(hypotheses),
      vma_(vma),
      other_id_(c.int_const("any_other_id")),
      pre_(small_state(c, "pre.")),
      solver_(make_solver(c, SEARCH_MS)) {
  z3::expr_vector ids(c);
  for (int i = 0; i < SMALL_IDS; i++) ids.push_back(c.int_val(i));
  ids.push_back(other_id_);
  z3::expr small = 0 <= vma && vma < SMALL_IDS && other_id_ >= SMALL_IDS;
  for (int i = 0; i <= BATCH_SLOTS; i++) {
    z3::expr id = z3::select(pre_.vmas, i);
    small = small && 0 <= id && id < SMALL_IDS;
  }
  solver_.add(small && instantiate_foralls(hypotheses_(pre_), ids));
}

bool SmallCounterexamples::genuine(const z3::model& m) {
  z3::solver check = make_solver(c_, SEARCH_MS);
  check.add(!hypotheses_(concrete(m, pre_)));
  return check.check() == z3::unsat;
}

bool SmallCounterexamples::find(const z3::expr& guard, const z3::expr& goal, bool step_adds_vma, z3::model* m) {
  solver_.push();
  solver_.add(guard && !goal);
  bool found = solver_.check() == z3::sat && genuine(solver_.get_model());
  if (found) {
    *m = solver_.get_model();
    solver_.push();
    simplify(*m, step_adds_vma);
    if (solver_.check() == z3::sat && genuine(solver_.get_model())) *m = solver_.get_model();
    solver_.pop();
  }
  solver_.pop();
  return found;
}

// Prefers, in turn, a small batch of distinct VMAs, then (keeping those and the added one)
// batched VMAs that look reachable (one file, added once, not removed), every other VMA
// like "any other", defaults 0 and counters small.
// Each preference stays only if a counterexample remains; the caller pops them all.
void SmallCounterexamples::simplify(const z3::model& first, bool step_adds_vma) {
  auto keep_if_sat = [&](const z3::expr& e) {
    solver_.push();
    solver_.add(e);
    if (solver_.check() == z3::sat) return true;
    solver_.pop();
    return false;
  };
  auto keep_all_or_each = [&](const std::vector<z3::expr>& group) {
    z3::expr_vector all(c_);
    for (const z3::expr& e : group) all.push_back(e);
    if (!keep_if_sat(z3::mk_and(all)))
      for (const z3::expr& e : group) keep_if_sat(e);
  };
  if (!keep_if_sat(pre_.count <= 1)) keep_if_sat(pre_.count <= 2);
  z3::expr_vector distinct_ids(c_);
  for (int i = 0; i < BATCH_SLOTS; i++)  // unused slots get ids of their own, outside the small world
    distinct_ids.push_back(z3::ite(i < pre_.count, z3::select(pre_.vmas, i), c_.int_val(-1 - i)));
  if (step_adds_vma) distinct_ids.push_back(vma_);
  keep_if_sat(z3::distinct(distinct_ids));  // a VMA in one slot only, the added one in none
  z3::model m = solver_.check() == z3::sat ? solver_.get_model() : first;
  auto value = [&](const z3::expr& e) { return m.eval(e, true).get_numeral_int64(); };

  std::set<long long> kept;
  z3::expr pin = c_.bool_val(true);
  if (step_adds_vma) {
    kept.insert(value(vma_));
    pin = vma_ == m.eval(vma_, true);
  }
  std::vector<z3::expr> batched;
  for (int i = 0; i < value(pre_.count) && i < BATCH_SLOTS; i++) {
    z3::expr id = z3::select(pre_.vmas, i);
    kept.insert(value(id));
    pin = pin && id == m.eval(id, true);
    z3::expr file = z3::select(pre_.vm_file, id);
    batched.push_back(file != 0 && file == z3::select(pre_.vm_file, z3::select(pre_.vmas, 0)) &&
                      z3::select(pre_.added, id) == 1 && z3::select(pre_.removed, id) == 0);
  }
  keep_if_sat(pin);
  keep_all_or_each(batched);

  const z3::expr* vma_arrays[] = {&pre_.vm_file, &pre_.added, &pre_.removed, &pre_.append_seq, &pre_.remove_seq};
  std::vector<z3::expr> others, mappings, ghosts, defaults;
  for (int id = 0; id < SMALL_IDS; id++) {
    z3::expr like_others = c_.bool_val(true);
    for (const z3::expr* a : vma_arrays) like_others = like_others && z3::select(*a, id) == z3::select(*a, other_id_);
    if (!kept.count(id)) others.push_back(like_others);
    mappings.push_back(z3::select(pre_.f_mapping, id) == z3::select(pre_.f_mapping, other_id_));
    if (kept.count(id)) ghosts.push_back(z3::select(pre_.append_seq, id) == 0 && z3::select(pre_.remove_seq, id) == 0);
  }
  for (const z3::expr* a : vma_arrays) defaults.push_back(z3::select(*a, other_id_) == 0);
  for (const z3::expr* x : {&pre_.lock_round_trips, &pre_.removals}) defaults.push_back(*x == 0);
  defaults.push_back(pre_.appends == pre_.count);
  for (const auto* group : {&others, &mappings, &defaults, &ghosts}) keep_all_or_each(*group);
  solver_.check();
}
