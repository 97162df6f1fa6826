// JUnit XML for CI: one test case per scenario, mutant and proof.
#pragma once
#include <string>
#include <vector>
#include "verify/all.hpp"

std::string junit_xml(const std::vector<Outcome>& outcomes);
bool write_junit(const std::string& file, const std::vector<Outcome>& outcomes, std::string* err);
