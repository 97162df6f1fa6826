// Run a registered scenario by name under its own search, with a mutant switched on or none.
#pragma once
#include <gtest/gtest.h>
#include <initializer_list>
#include <string>
#include "verify/search/scenario.hpp"

inline RunResult run_named(const std::string& scenario, const std::string& mutant = "none") {
  const Scenario* s = find_scenario(scenario);
  EXPECT_NE(s, nullptr) << scenario;
  RunOptions o;
  o.mutant = mutant;
  return s ? run_scenario(*s, o, false) : RunResult{};
}

// The scenario verifies, and each of `reached` (a figure a run sets to 1 when it gets to the
// window its mechanism protects) is 1: a scenario whose race never happened would verify too.
inline void expect_verified_reaching(const std::string& scenario, std::initializer_list<const char*> reached) {
  RunResult r = run_named(scenario);
  EXPECT_EQ(r.result, "verified") << scenario << ": " << r.kind << ": " << r.message;
  for (const char* figure : reached) EXPECT_EQ(r.stats[figure], 1) << scenario << " never reached " << figure;
}

// The scenario, with the mutant switched on, fails with this kind.
inline void expect_caught_as(const std::string& scenario, const std::string& mutant, const std::string& kind) {
  RunResult r = run_named(scenario, mutant);
  EXPECT_EQ(r.result, "counterexample") << scenario << " with " << mutant;
  EXPECT_EQ(r.kind, kind) << scenario << " with " << mutant << ": " << r.message;
}
