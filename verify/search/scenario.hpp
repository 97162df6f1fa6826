// The scenario registry: every scenario file registers itself by name.
#pragma once
#include <map>
#include <string>
#include <vector>
#include "verify/search/result.hpp"

struct Scenario {
  std::string name;
  std::string description;
  std::string search;  // the search it is verified with: "full" or "bound:N"
  RunResult (*run)(const Scenario&, const RunOptions&);
  // Teardown scenarios: the layout's lock round trips, batched and unbatched (else null).
  void (*figures)(std::map<std::string, long>*) = nullptr;
  // Whether `all` also verifies the unbatched (pre-patch) baseline on this scenario.
  bool baseline = false;
  // Threads whose twin (an identical earlier thread) lets full search skip mirror images (README, "Symmetry").
  int twins = 0;
};

const std::vector<Scenario>& all_scenarios();
const Scenario* find_scenario(const std::string& name);

struct ScenarioRegistrar {
  explicit ScenarioRegistrar(Scenario s);
};

// Run a scenario with its own search unless the options name another.
RunResult run_scenario(const Scenario& s, RunOptions o, bool search_given);
