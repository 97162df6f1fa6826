// Run a registered scenario by name under its own search, with a mutant switched on or none.
#pragma once
#include <gtest/gtest.h>
#include <string>
#include "verify/search/scenario.hpp"

inline RunResult run_named(const std::string& scenario, const std::string& mutant = "none") {
  const Scenario* s = find_scenario(scenario);
  EXPECT_NE(s, nullptr) << scenario;
  RunOptions o;
  o.mutant = mutant;
  return s ? run_scenario(*s, o, false) : RunResult{};
}
