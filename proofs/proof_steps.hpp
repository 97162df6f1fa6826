// What the two kinds of proof share: their result shape, the solver set-up, one check.
#pragma once
#include <z3++.h>
#include <string>
#include <vector>
#include "proofs/batch_system.hpp"
#include "proofs/prover.hpp"
#include "proofs/spec_file.hpp"

ProofResult error_result(const Spec& spec, const std::string& mutant, const std::string& message);
// Z3 answered unknown (a limit, or a question it cannot decide): neither proved nor refuted.
ProofResult incomplete_result(const Spec& spec, const std::string& mutant, const std::string& message);
z3::solver make_solver(z3::context& c, unsigned timeout_ms = 30000);
// Pushes a scope with hypotheses and !goal and checks it: sat is a counterexample (read the
// model before popping), unsat a proof, unknown sets *unknown_reason. The caller pops.
z3::check_result check_negation(z3::solver& s, const z3::expr& hypotheses, const z3::expr& goal,
                                std::string* unknown_reason);

// Another invariant spec a refuted one could assume: its name and its formula.
struct NamedSpec {
  std::string name;
  z3::expr formula;
};

// Holds after init, and is preserved by add, process and final from any state with
// 0 <= count <= 8 (the C array) where it and the assumed specs hold. When a step does not
// preserve it, the message says "false" when a violating state is reachable from init (by
// bounded unrolling) and "not inductive" otherwise, naming those of `others` that fail in the
// counterexample's state before the step (assuming one of them would exclude it).
ProofResult prove_by_induction(z3::context& c, const Spec& spec, const Vocabulary& voc, const z3::expr& inv,
                               const std::vector<z3::expr>& assumed, BatchMutant mutant, ProofResult r,
                               const std::vector<NamedSpec>& others = {});

// Holds after init, add(seq[0]), ..., add(seq[n-1]), final for every n <= the spec's trace
// length (and for every n when its prefix_invariant is inductive).
ProofResult prove_on_traces(z3::context& c, const Spec& spec, const Vocabulary& voc, const z3::expr& prop,
                            const z3::expr* prefix_invariant, BatchMutant mutant, ProofResult r);
