// Counterexamples to induction steps, sought among small states where Z3 finds them fast.
#pragma once
#include <z3++.h>
#include <functional>
#include "proofs/batch_system.hpp"

class SmallCounterexamples {
 public:
  using Hypotheses = std::function<z3::expr(const BatchState&)>;
  // hypotheses: what a pre-state satisfies; vma: the VMA an add step adds.
  SmallCounterexamples(z3::context& c, const Hypotheses& hypotheses, const z3::expr& vma);

  // The symbolic small pre-state, for building the steps from it.
  const BatchState& pre() const { return pre_; }

  // True with *m a model of a pre-state that satisfies the hypotheses (as written, not only
  // their instances) and guard, and whose post-state violates goal; simplified for reading.
  // step_adds_vma: the step is an add, so the added VMA belongs to the counterexample.
  bool find(const z3::expr& guard, const z3::expr& goal, bool step_adds_vma, z3::model* m);

 private:
  bool genuine(const z3::model& m);
  void simplify(const z3::model& found, bool step_adds_vma);

  z3::context& c_;
  Hypotheses hypotheses_;
  z3::expr vma_, other_id_;
  BatchState pre_;
  z3::solver solver_;
};
