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

// Bounded unrolling from init: the shortest run of at most kReachDepth steps (any of add(v),
// process, final, each under its guard) ending in a state where inv fails: the run as
// "init, add(vma 3), final" and the state after each of its steps, the last one violating inv.
// Empty when there is none that short (or Z3 cannot tell in time).
static const int kReachDepth = 10;
static const unsigned REACH_MS = 3000;

struct ReachedViolation {
  std::string run, states;
};

static ReachedViolation reachable_violation(z3::context& c, const BatchSystem& sys, const Vocabulary& voc,
                                            const z3::expr& inv, const std::string& spec_name) {
  z3::solver solver = make_solver(c, REACH_MS);
  BatchState s = sys.initial(fresh_state(c, "reach0."));
  std::vector<BatchState> along = {s};
  std::vector<z3::expr> kinds, vmas;
  z3::expr path = c.bool_val(true);
  for (int depth = 0; depth <= kReachDepth; depth++) {
    if (depth > 0) {
      z3::expr k = c.int_const(("reach.step" + std::to_string(depth)).c_str());
      z3::expr v = c.int_const(("reach.vma" + std::to_string(depth)).c_str());
      // VMA ids are what the model numbers VMAs by: 0, 1, 2, ... (a negative one is no VMA);
      // small ones read best, and ten steps need no more than ten.
      path = path && sys.in_bounds(s) && 0 <= k && k <= 2 && z3::implies(k == 0, 0 <= v && v < 32 && sys.add_guard(s, v)) &&
             z3::implies(k == 1, sys.process_guard(s));
      s = ite(k == 0, sys.add(s, v), ite(k == 1, sys.process(s), sys.finalize(s)));
      along.push_back(s);
      kinds.push_back(k);
      vmas.push_back(v);
    }
    std::string unknown;
    z3::check_result res = check_negation(solver, path, spec_at(inv, voc, s), &unknown);
    if (res == z3::sat) {
      z3::model m = solver.get_model();
      ReachedViolation r{"init", ""};
      std::vector<std::string> calls = {"init"};
      std::vector<z3::expr> added;
      for (size_t i = 0; i < kinds.size(); i++) {
        long long k = model_int(m, kinds[i]);
        if (k == 0) added.push_back(vmas[i]);
        calls.push_back(k == 0 ? "add(vma " + std::to_string(model_int(m, vmas[i])) + ")" : k == 1 ? "process" : "final");
        r.run += ", " + calls.back();
      }
      // One namer for the whole run, so that a file or a mapping keeps its name from state to state.
      StateNamer names;
      // The first and the violating state in full, those between by their batch line.
      for (size_t i = 0; i < along.size(); i++) {
        const bool last = i + 1 == along.size();
        std::string text = format_state(state_in_model(m, along[i], added), names, "  ");
        if (i > 0 && !last) text = text.substr(0, text.find('\n') + 1);
        r.states += "after " + calls[i] + (last ? " (violates " + spec_name + ")" : "") + ":\n" + text;
      }
      return r;
    }
    solver.pop();
    if (res == z3::unknown) return {};
  }
  return {};
}

ProofResult prove_by_induction(z3::context& c, const Spec& spec, const Vocabulary& voc, const z3::expr& inv,
                               const std::vector<z3::expr>& assumed, BatchMutant mutant, ProofResult r,
                               const std::vector<NamedSpec>& others) {
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
      const ReachedViolation reach = reachable_violation(c, sys, voc, inv, spec.name);
      if (!reach.run.empty()) {
        // False, not merely not inductive: the run that reaches a violating state is the
        // counterexample, state by state (the step's own counterexample may be unreachable).
        r.message = "false: not preserved by " + step->name + ", and a state violating it is reachable: " + reach.run;
        r.counterexample = "the run, state by state:\n" + reach.states;
        return r;
      } else {
        // A spec excludes the counterexamples when, assumed too, it makes this step preserve inv.
        std::string blockers;
        for (const NamedSpec& o : others) {
          std::string why;
          z3::check_result blocked =
              check_negation(quick, hypotheses(pre) && spec_at(o.formula, voc, pre) && steps[i].guard,
                             spec_at(inv, voc, steps[i].post), &why);
          quick.pop();
          if (blocked == z3::unsat) blockers += (blockers.empty() ? "" : " ") + o.name;
        }
        r.message = "not inductive: not preserved by " + step->name +
                    " from a state no run of up to " + std::to_string(kReachDepth) + " steps from init reaches" +
                    (blockers.empty() ? "; assuming no single other spec makes that step preserve it"
                                      : "; '; assumes: " + blockers + "' would exclude it (each alone makes " +
                                            step->name + " preserve it)");
      }
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
