// Trace specs: a property of the state after a whole teardown (init, add of each VMA, final),
// checked by unrolling up to the spec's length and, given a prefix_invariant, for every length.
//
// Unrolled alone, Z3 must re-derive at each length how the batch relates to the spec's
// counting over the whole sequence (exponential in the length: 16 VMAs did not finish in
// minutes). A prefix_invariant states that relation after every add; each length is checked
// in turn with the shorter lengths' results kept as lemmas, so every check is one step deep.
// The same three obligations over an arbitrary state (holds after init, kept by add, gives
// the property after final) are an induction on the teardown length.
#include <set>
#include "proofs/proof_steps.hpp"
#include "proofs/state_text.hpp"

namespace {

// Names of the constants a formula reads (recursive helpers read none: see spec_file.hpp).
std::set<std::string> constants_read(const z3::expr& e) {
  std::set<std::string> names;
  std::set<unsigned> seen;
  std::vector<z3::expr> todo{e};
  while (!todo.empty()) {
    z3::expr x = todo.back();
    todo.pop_back();
    if (!seen.insert(x.id()).second) continue;
    if (x.is_quantifier()) {
      todo.push_back(x.body());
    } else if (x.is_app()) {
      if (x.is_const() && x.decl().decl_kind() == Z3_OP_UNINTERPRETED) names.insert(x.decl().name().str());
      for (unsigned i = 0; i < x.num_args(); i++) todo.push_back(x.arg(i));
    }
  }
  return names;
}

// The fields the given formulas depend on through any number of adds and a final: only
// these are tied from state to state, so Z3 never sees the ghost arrays a spec ignores.
std::set<std::string> cone_of(z3::context& c, const BatchSystem& sys, const std::vector<z3::expr>& formulas) {
  const std::string prefix = "cone.";
  BatchState x = fresh_state(c, prefix);
  z3::expr vma = c.int_const("cone.vma");
  BatchState added = sys.add(x, vma), finalized = sys.finalize(x);
  std::set<std::string> cone;
  for (const z3::expr& f : formulas)
    for (const std::string& name : constants_read(f)) cone.insert(name);
  for (const std::string& name : constants_read(sys.add_guard(x, vma))) cone.insert(name.substr(prefix.size()));
  for (bool grew = true; grew;) {
    grew = false;
    for (const StateField& f : state_fields()) {
      if (!cone.count(f.name)) continue;
      for (const BatchState* next : {&added, &finalized})
        for (const std::string& name : constants_read(next->*f.member))
          if (name.compare(0, prefix.size(), prefix) == 0 && name != "cone.vma")
            grew |= cone.insert(name.substr(prefix.size())).second;
    }
  }
  return cone;
}

class TraceProof {
 public:
  TraceProof(z3::context& c, const Vocabulary& voc, const z3::expr& prop, const z3::expr* pi)
      : c_(c), voc_(voc), prop_(prop), pi_(pi) {}

  // The spec (or the prefix_invariant) read at state s after n adds.
  z3::expr at(const z3::expr& formula, const BatchState& s, const z3::expr& n) const {
    z3::expr_vector from(c_), to(c_);
    from.push_back(voc_.n);
    to.push_back(n);
    return spec_at(formula, voc_, s).substitute(from, to);
  }

  // The layout is the vocabulary's throughout: the specs read vm_file to follow seq.
  BatchState with_layout(BatchState s) const {
    s.vm_file = voc_.state.vm_file;
    s.f_mapping = voc_.state.f_mapping;
    return s;
  }

  // The state after k adds as terms of the teardown's inputs only.
  BatchState replay(const BatchSystem& sys, int k) const {
    BatchState uninitialised = voc_.state;
    uninitialised.vmas = c_.constant("uninitialised_vmas", field_sort(c_, FieldSort::IntArray));
    BatchState s = sys.initial(with_layout(uninitialised));
    for (int i = 0; i < k; i++) s = sys.add(s, z3::select(voc_.seq, i));
    return s;
  }

  // end: the state after final as terms of the teardown's inputs only, so that the model
  // gives every field its true value (fields outside the cone are unconstrained constants).
  std::string teardown(const z3::model& m, int k, const BatchState& end, StateNamer& names) const {
    std::string adds;
    std::vector<z3::expr> focus;
    for (int i = 0; i < k; i++) {
      z3::expr vma = z3::select(voc_.seq, i);
      focus.push_back(vma);
      adds += "add(" + std::to_string(model_int(m, vma)) + ": " +
              names.file(model_int(m, z3::select(voc_.state.vm_file, vma))) + ") ";
    }
    return "init " + adds + "final gives\n" + format_state(state_in_model(m, end, focus, true), names, "  ");
  }

  // "" when the prefix_invariant makes an induction on the length go through, else why not.
  std::string induction_gap(BatchMutant mutant) const {
    BatchSystem sys(c_, mutant);
    z3::solver solver = make_solver(c_);
    BatchState any = with_layout(fresh_state(c_, "any."));
    z3::expr n = c_.int_const("any.n");
    z3::expr hyp = n >= 0 && at(*pi_, any, n);
    z3::expr vma = z3::select(voc_.seq, n);
    struct Obligation {
      const char* fails;
      z3::expr hypotheses, goal;
    };
    const Obligation obligations[] = {
        {"it allows count outside 0..8", hyp, sys.in_bounds(any)},
        {"add does not keep it", hyp && sys.in_bounds(any) && sys.add_guard(any, vma), at(*pi_, sys.add(any, vma), n + 1)},
        {"it does not give the property after final", hyp && sys.in_bounds(any), at(prop_, sys.finalize(any), n)},
    };
    for (const Obligation& o : obligations) {
      std::string unknown;
      z3::check_result r = check_negation(solver, o.hypotheses, o.goal, &unknown);
      if (r != z3::unsat) return r == z3::sat ? o.fails : "Z3 could not decide (" + unknown + ")";
      solver.pop();
    }
    return "";
  }

 private:
  z3::context& c_;
  const Vocabulary& voc_;
  z3::expr prop_;
  const z3::expr* pi_;
};

}  // namespace

ProofResult prove_on_traces(z3::context& c, const Spec& spec, const Vocabulary& voc, const z3::expr& prop,
                            const z3::expr* prefix_invariant, BatchMutant mutant, ProofResult r) {
  const int N = spec.trace_length;
  TraceProof proof(c, voc, prop, prefix_invariant);
  BatchSystem sys(c, mutant, N);  // scans every slot a mutant could fill in N adds
  // full: the whole unrolling so far with every proved instance as a lemma. local: one step
  // from the previous state, knowing only its prefix_invariant; tried first since its unsat
  // implies full's, and Z3 answers it without wandering through the earlier steps.
  z3::solver full = make_solver(c), local = make_solver(c);
  auto prove = [&](const z3::expr& goal, const z3::expr* local_hypotheses, std::string* unknown) {
    if (local_hypotheses) {
      z3::check_result res = check_negation(local, *local_hypotheses, goal, unknown);
      local.pop();
      if (res == z3::unsat) return res;
    }
    z3::check_result res = check_negation(full, c.bool_val(true), goal, unknown);
    if (res != z3::sat) full.pop();  // keep a counterexample's scope for its model
    return res;
  };
  std::vector<z3::expr> read{prop};
  if (prefix_invariant) read.push_back(*prefix_invariant);
  const std::set<std::string> cone = cone_of(c, sys, read);

  BatchState uninitialised = voc.state;
  uninitialised.vmas = c.constant("uninitialised_vmas", field_sort(c, FieldSort::IntArray));
  BatchState s = sys.initial(proof.with_layout(uninitialised));
  z3::expr step = c.bool_val(true);  // how s came from the previous state, when lemmas hold
  bool lemmas = prefix_invariant != nullptr;
  std::string note, unknown;
  for (int k = 0;; k++) {
    // The prefix_invariant before final, then the property after it; each proved instance
    // holds for every teardown of k VMAs, so for this prefix of the longer ones: a lemma.
    z3::expr pi = lemmas ? proof.at(*prefix_invariant, s, c.int_val(k)) : c.bool_val(true);
    if (lemmas) {
      z3::check_result res = prove(pi, k > 0 ? &step : nullptr, &unknown);
      if (res == z3::unsat) {
        full.add(pi);
      } else {
        if (res == z3::sat) full.pop();
        // A false helper says nothing about the property: go on without it (slower).
        lemmas = false;
        pi = c.bool_val(true);
        note = "; prefix_invariant fails after " + std::to_string(k) + " adds";
      }
    }
    BatchState end = sys.finalize(s);
    z3::expr holds = proof.at(prop, end, c.int_val(k));
    z3::check_result res = prove(holds, lemmas ? &pi : nullptr, &unknown);
    if (res == z3::sat) {
      StateNamer names;
      r.result = "refuted";
      r.message = "fails after a teardown of " + std::to_string(k) + " VMAs";
      r.counterexample = proof.teardown(full.get_model(), k, sys.finalize(proof.replay(sys, k)), names);
      return r;
    }
    if (res == z3::unknown)
      return incomplete_result(spec, r.mutant, spec.path + ": Z3 could not decide n = " + std::to_string(k) + " (" + unknown + ")");
    full.add(holds);
    if (k == N) break;
    z3::expr vma = z3::select(voc.seq, k);
    // Name each state: the lemmas about it then carry over to the next step's terms.
    BatchState next = proof.with_layout(fresh_state(c, "t" + std::to_string(k + 1) + "."));
    BatchState moved = sys.add(s, vma);
    z3::expr guard = sys.add_guard(s, vma), moves = c.bool_val(true);
    for (const StateField& f : state_fields())
      if (cone.count(f.name) && !f.frozen) moves = moves && next.*f.member == moved.*f.member;
    full.add(guard && moves);
    step = pi && guard && moves;
    s = next;

  }
  r.result = "proved";
  r.message = "holds after every teardown of at most " + std::to_string(N) + " VMAs";
  if (lemmas) {
    std::string gap = proof.induction_gap(mutant);
    r.message = gap.empty() ? "holds after every teardown: unrolled to " + std::to_string(N) +
                                  " VMAs, and prefix_invariant is inductive"
                            : r.message + "; no induction on the length: " + gap;
  }
  r.message += note;
  return r;
}
