#include "verify/search/scenario.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

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
  // The exploration's own counterexample comes first; an incomplete search (a budget, or a
  // replayed iteration) that reached a violating state did find a counterexample.
  if (r->result == "counterexample") return;
  r->result = "counterexample";
  r->kind = "spec";
  r->message = "an explored batch state violates " + spec + ": " + why;
}

// The explored state that violates a spec, and the failure to report where it is recorded.
// In the iteration only a comparison: Relacy runs threads on small fiber stacks, no place
// for Z3.
static BatchSnapshot g_violating;
static char g_violation[256];
static bool not_the_violating_state(const BatchSnapshot& s, char* message, unsigned size) {
  if (std::memcmp(&s, &g_violating, sizeof s) != 0) return true;
  std::snprintf(message, size, "%s", g_violation);
  return false;
}

// The first explored state that violates a spec, with "violates SPEC: the state" on one line.
static bool find_violating_state(std::string* message) {
  for (const BatchSnapshot& st : explored_batch_states()) {
    std::string spec, why, line;
    if (check_states_against_specs({st}, default_spec_files(), &spec, &why)) continue;
    for (char ch : why)  // one line: the driver reads the failure's first line
      if (ch != '\n' && !(ch == ' ' && !line.empty() && line.back() == ' ')) line += ch;
      else if (!line.empty() && line.back() != ' ') line += ' ';
    g_violating = st;
    *message = "an explored batch state violates " + spec + ": " + line;
    return true;
  }
  return false;
}

// The search again, failing the first interleaving that records the violating state: its
// trace and a search state that replays it.
static RunResult run_to_violation(const Scenario& s, const RunOptions& o, const std::string& message) {
  std::snprintf(g_violation, sizeof g_violation, "%s", message.c_str());
  g_batch_state_check = &not_the_violating_state;
  RunResult r = s.run(s, o);
  g_batch_state_check = nullptr;
  return r;
}

RunResult run_scenario(const Scenario& s, RunOptions o, bool search_given) {
  if (!search_given) SearchSpec::parse(s.search, &o.search, nullptr);
  RunResult r = s.run(s, o);
  if (r.result == "error") return r;  // bad input (a saved state): nothing was explored
  check_explored_states(&r);
  // A violation found after the search (or the one replayed iteration): find its interleaving.
  std::string message;
  if (r.result == "counterexample" && r.kind == "spec" && r.state.empty() && find_violating_state(&message)) {
    RunResult found = run_to_violation(s, o, message);
    if (found.result == "counterexample" && found.kind == "spec") {
      found.stats = r.stats;
      found.violated_spec = r.violated_spec;
      r = found;
    }
  }
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
    case Kind::full: return reduce ? "full+reduce" : "full";
    case Kind::bound: return "bound:" + std::to_string(n);
    case Kind::random: return "random:" + std::to_string(n);
  }
  return "?";
}

bool SearchSpec::parse(const std::string& text, SearchSpec* out, std::string* err) {
  SearchSpec s;
  // bound:0 (no preemption at all) is where the search for the shortest counterexample starts.
  auto number = [&](const std::string& digits, unsigned least) {
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    s.n = (unsigned)std::stoul(digits);
    return s.n >= least;
  };
  bool ok = false;
  if (text == "full" || text == "full+reduce") {
    s.reduce = text == "full+reduce";
    ok = true;
  } else if (text.rfind("bound:", 0) == 0) {
    s.kind = Kind::bound;
    ok = number(text.substr(6), 0);
  } else if (text.rfind("random:", 0) == 0) {
    s.kind = Kind::random;
    ok = number(text.substr(7), 1);
  }
  if (!ok) {
    if (err) *err = "bad search '" + text + "': expected full, full+reduce, bound:N (N >= 0) or random:N (N > 0)";
    return false;
  }
  *out = s;
  return true;
}
