#include "verify/scenario.hpp"

#include <algorithm>

#include "model/batch_states.hpp"
#include "proofs/prover.hpp"

static std::vector<Scenario>& registry() {
  static std::vector<Scenario> list;
  return list;
}

ScenarioRegistrar::ScenarioRegistrar(Scenario s) {
  auto& r = registry();
  r.insert(std::upper_bound(r.begin(), r.end(), s, [](const Scenario& a, const Scenario& b) { return a.name < b.name; }),
           std::move(s));
}

const std::vector<Scenario>& all_scenarios() { return registry(); }

const Scenario* find_scenario(const std::string& name) {
  for (const Scenario& s : registry())
    if (s.name == name) return &s;
  return nullptr;
}

// Every distinct batch state the exploration reached, against every spec file (DESIGN: the
// specs are checked both by the Z3 proofs and against every explored state).
static void check_explored_states(RunResult* r) {
  std::vector<BatchSnapshot> states = explored_batch_states();
  if (states.empty()) return;
  r->stats["batch_states"] = (long)states.size();
  std::string spec, why;
  bool malformed = false;
  if (check_states_against_specs(states, default_spec_files(), &spec, &why, &malformed)) {
    if (dropped_batch_states() && r->result == "verified") {
      r->result = "incomplete";
      r->message = std::to_string(dropped_batch_states()) + " batch states did not fit the table: specs not checked on them";
    }
    return;
  }
  if (malformed) {  // bad input, whatever the exploration found: exit 2, not a counterexample
    r->result = "error";
    r->kind = "malformed spec";
    r->message = why;
    return;
  }
  r->violated_spec = spec;
  if (r->result != "verified") return;  // the exploration's own counterexample comes first
  r->result = "counterexample";
  r->kind = "spec";
  r->message = "an explored batch state violates " + spec + ": " + why;
}

RunResult run_scenario(const Scenario& s, RunOptions o, bool search_given) {
  if (!search_given) SearchSpec::parse(s.search, &o.search, nullptr);
  RunResult r = s.run(s, o);
  if (r.result == "error") return r;  // bad input (a saved state): nothing was explored
  check_explored_states(&r);
  if (!s.figures) return r;
  s.figures(&r.stats);
  // The model's teardown and the plain run of the same code must take the lock equally often.
  auto explored = r.stats.find("write_locks_explored");
  long expected = r.stats[o.unbatched ? "write_locks_unbatched" : "write_locks_batched"];
  if (r.result == "verified" && explored != r.stats.end() && explored->second != expected) {
    r.result = "counterexample";
    r.kind = "lock count";
    r.message = "the explored teardown took i_mmap_lock_write " + std::to_string(explored->second) +
                " times, the plain run of the same code " + std::to_string(expected);
  }
  return r;
}

std::string SearchSpec::str() const {
  switch (kind) {
    case Kind::full: return "full";
    case Kind::bound: return "bound:" + std::to_string(n);
    case Kind::random: return "random:" + std::to_string(n);
  }
  return "?";
}

bool SearchSpec::parse(const std::string& text, SearchSpec* out, std::string* err) {
  SearchSpec s;
  auto number = [&](const std::string& digits) {
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    s.n = (unsigned)std::stoul(digits);
    return s.n > 0;
  };
  bool ok = false;
  if (text == "full") {
    ok = true;
  } else if (text.rfind("bound:", 0) == 0) {
    s.kind = Kind::bound;
    ok = number(text.substr(6));
  } else if (text.rfind("random:", 0) == 0) {
    s.kind = Kind::random;
    ok = number(text.substr(7));
  }
  if (!ok) {
    if (err) *err = "bad search '" + text + "': expected full, bound:N or random:N with N > 0";
    return false;
  }
  *out = s;
  return true;
}
