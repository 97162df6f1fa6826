// Everything vmaverify checks, as groups of expected results: the scenarios on the correct
// model, each mutant against its scenario, and (registered by proofs/) the Z3 proofs.
#pragma once
#include <functional>
#include <string>
#include <vector>
#include "verify/search/result.hpp"

struct Outcome {
  RunResult r;
  bool as_expected = false;
  std::string expected;  // e.g. "verified", "counterexample (data race)", "proved"
  std::string group;     // the check group it came from: scenarios, mutants, proofs
  std::string trace;     // the counterexample trace written for it, if any
};

using OutcomeSink = std::function<void(const Outcome&)>;

// One unit of `all`, run in a process of its own: what it reports if it dies (scenario,
// mutant, variant, expected), and the work, which gives one or more outcomes.
struct Check {
  Outcome on_crash;
  std::function<void(const OutcomeSink&)> run;
};

struct CheckGroup {
  const char* name;
  std::vector<Check> (*checks)(bool progress);
};
struct CheckGroupRegistrar {
  explicit CheckGroupRegistrar(CheckGroup g);
};

// Run c in a child process, passing each outcome to sink as it arrives; a child that crashes
// or exits before reporting adds an outcome with result "error" saying how it died.
void run_check_isolated(const Check& c, const OutcomeSink& sink);
// The same for many checks, at most jobs child processes at a time; sink(i, outcome) gets check
// i's outcomes in check order (a later check's wait until every earlier one is done).
// finished(i, seconds), when given, follows check i's last outcome: how long its process ran.
void run_checks_isolated(const std::vector<Check>& checks, int jobs,
                         const std::function<void(size_t, const Outcome&)>& sink,
                         const std::function<void(size_t, double)>& finished = nullptr);

// Run every group in registration order, each check isolated; each outcome goes to sink as
// soon as it is known. Only the checks `selected` accepts by check_id (verify/checks/check_filter.hpp), when given.
// finished(id, seconds), when given, follows each check's last outcome.
void run_all_checks(bool progress, const OutcomeSink& sink,
                    const std::function<bool(const std::string& id)>& selected = nullptr,
                    const std::function<void(const std::string& id, double seconds)>& finished = nullptr);
// How many checks all runs at a time: one per core, at most two.
int all_jobs();
// The check_id of every check, without running any.
std::vector<std::string> all_check_ids();

// An outcome as one JSON line and back (how a check's process reports to `all`).
std::string outcome_wire(const Outcome& o);
bool outcome_from_wire(const std::string& line, Outcome* o);
