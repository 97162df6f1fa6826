// Everything vmaverify checks, as groups of expected results: the scenarios on the correct
// model, each mutant against its scenario, and (registered by proofs/) the Z3 proofs.
#pragma once
#include <functional>
#include <string>
#include <vector>
#include "verify/result.hpp"

struct Outcome {
  RunResult r;
  bool as_expected = false;
  std::string expected;  // e.g. "verified", "counterexample (data race)", "proved"
  std::string group;     // the check group it came from: scenarios, mutants, proofs
};

using OutcomeSink = std::function<void(const Outcome&)>;

struct CheckGroup {
  const char* name;
  void (*run)(bool progress, const OutcomeSink& sink);
};
struct CheckGroupRegistrar {
  explicit CheckGroupRegistrar(CheckGroup g);
};

// Run every group in registration order; each outcome goes to sink as soon as it is known.
void run_all_checks(bool progress, const OutcomeSink& sink);
