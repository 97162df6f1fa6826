#include "proofs/proof_steps.hpp"

z3::solver make_solver(z3::context& c, unsigned timeout_ms) {
  z3::solver s(c);
  z3::params p(c);
  p.set("timeout", timeout_ms);
  s.set(p);
  return s;
}

ProofResult error_result(const Spec& spec, const std::string& mutant, const std::string& message) {
  ProofResult r;
  r.spec = spec.name;
  r.mutant = mutant;
  r.result = "error";
  r.message = message;
  r.method = spec.is_trace() ? "trace:" + std::to_string(spec.trace_length) : "induction";
  return r;
}

ProofResult incomplete_result(const Spec& spec, const std::string& mutant, const std::string& message) {
  ProofResult r = error_result(spec, mutant, message);
  r.result = "incomplete";
  return r;
}

z3::check_result check_negation(z3::solver& s, const z3::expr& hypotheses, const z3::expr& goal,
                                std::string* unknown_reason) {
  s.push();
  s.add(hypotheses && !goal);
  z3::check_result r = s.check();
  if (r == z3::unknown) *unknown_reason = s.reason_unknown();
  return r;
}
