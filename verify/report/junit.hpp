// Reports of `all` for CI: JUnit XML (one test case per scenario, baseline, mutant and proof)
// and a Markdown summary (for $GITHUB_STEP_SUMMARY).
#pragma once
#include <string>
#include <vector>
#include "verify/checks/all.hpp"

// The outcome's name, unique within one `all`: the scenario or spec, with the mutant or the baseline.
std::string case_name(const Outcome& o);
// Where the failure was detected: the failing trace step's file:line, or "" when unknown.
std::string failure_location(const Outcome& o);

std::string junit_xml(const std::vector<Outcome>& outcomes);
bool write_junit(const std::string& file, const std::vector<Outcome>& outcomes, std::string* err);

std::string markdown_summary(const std::vector<Outcome>& outcomes);
// Appends (GitHub's step summary file is shared by the job's steps).
bool write_markdown_summary(const std::string& file, const std::vector<Outcome>& outcomes, std::string* err);
