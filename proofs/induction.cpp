// Induction over the batch steps for invariant specs.
#include "proofs/proof_steps.hpp"
#include "proofs/small_counterexample.hpp"
#include "proofs/state_text.hpp"

static std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

static const unsigned QUICK_MS = 500;

struct Step {
  std::string name;
  z3::expr guard;
  BatchState post;
};

static std::vector<Step> steps_from(const BatchSystem& sys, const BatchState& pre, const z3::expr& vma) {
  return {{"add", sys.add_guard(pre, vma), sys.add(pre, vma)},
          {"process", sys.process_guard(pre), sys.process(pre)},
          {"final", pre.count.ctx().bool_val(true), sys.finalize(pre)}};
}

ProofResult prove_by_induction(z3::context& c, const Spec& spec, const Vocabulary& voc, const z3::expr& inv,
                               const std::vector<z3::expr>& assumed, BatchMutant mutant, ProofResult r) {
  BatchSystem sys(c, mutant);
  z3::solver solver = make_solver(c);
  std::string unknown;
  StateNamer names;

  BatchState init = sys.initial(fresh_state(c, "init."));
  z3::check_result base = check_negation(solver, c.bool_val(true), spec_at(inv, voc, init), &unknown);
  if (base == z3::sat) {
    r.result = "refuted";
    r.message = "does not hold after init";
    r.counterexample = "after init:\n" + format_state(state_in_model(solver.get_model(), init, {}), names, "  ");
    return r;
  }
  if (base == z3::unknown) return incomplete_result(spec, r.mutant, spec.path + ": Z3 could not decide init (" + unknown + ")");
  solver.pop();

  auto hypotheses = [&](const BatchState& pre) {
    z3::expr h = sys.in_bounds(pre) && spec_at(inv, voc, pre);
    for (const z3::expr& a : assumed) h = h && spec_at(a, voc, pre);
    return h;
  };
  z3::expr vma = c.int_const("vma");
  SmallCounterexamples small(c, hypotheses, vma);
  BatchState pre = fresh_state(c, "pre.");
  const std::vector<Step> steps = steps_from(sys, pre, vma), small_steps = steps_from(sys, small.pre(), vma);
  // Z3 proves a step quickly or not at all, and diverges looking for counterexamples: a
  // short attempt, then the small-state search (which also gives the more readable
  // counterexample), then a patient attempt.
  z3::solver quick = make_solver(c, QUICK_MS);
  for (size_t i = 0; i < steps.size(); i++) {
    const BatchState* from = &pre;
    const Step* step = &steps[i];
    z3::expr hyps = hypotheses(pre) && step->guard, goal = spec_at(inv, voc, step->post);
    z3::model m(c);
    z3::check_result res = check_negation(quick, hyps, goal, &unknown);
    if (res == z3::sat) m = quick.get_model();
    quick.pop();
    if (res != z3::unsat) {
      if (small.find(small_steps[i].guard, spec_at(inv, voc, small_steps[i].post), steps[i].name == "add", &m)) {
        res = z3::sat;
        from = &small.pre();
        step = &small_steps[i];
      } else if (res == z3::unknown) {
        res = check_negation(solver, hyps, goal, &unknown);
        if (res == z3::sat) m = solver.get_model();
        solver.pop();
      }
    }
    if (res == z3::unknown)
      return incomplete_result(spec, r.mutant, spec.path + ": Z3 could not decide " + step->name + " (" + unknown + ")");
    if (res == z3::sat) {
      std::string call = step->name == "add" ? "add(vma " + std::to_string(model_int(m, vma)) + ")" : step->name;
      r.result = "refuted";
      r.message = "not preserved by " + step->name;
      std::vector<z3::expr> focus;
      if (step->name == "add") focus.push_back(vma);
      r.counterexample = "from state\n" + format_state(state_in_model(m, *from, focus), names, "  ") + "step " +
                         call + " gives\n" + format_state(state_in_model(m, step->post, focus), names, "  ");
      return r;
    }
  }
  r.result = "proved";
  r.message = "holds after init; preserved by add, process, final" +
              (spec.assumes.empty() ? std::string() : " assuming " + join(spec.assumes));
  return r;
}
