// Measuring coverage in this process: clear the build's gcov counters before the checks run,
// then collect them through gcovr into a CoverageReport. Only a coverage build (preset
// "coverage") has counters; elsewhere coverage_measured() is false and both say why not.
#pragma once
#include <string>
#include <vector>
#include "verify/coverage/coverage.hpp"

// Whether this binary has gcov counters.
bool coverage_measured();
// Forget every counter written so far (earlier runs would count as reached).
void coverage_reset();
// Write this process's counters, run gcovr over the build (an HTML report in html_dir if not
// empty), and read its report against the exceptions. "" on success, else why not.
std::string coverage_collect(const std::string& html_dir, std::vector<CoverageException>* exceptions,
                             CoverageReport* out);
// The default exceptions file of this checkout.
std::string default_coverage_exceptions();
