// vmaverify kernel --coverage: line and branch coverage of the code the checker takes from the
// tree (the extracted functions of mm/ and kernel/locking/rwsem.c), from the gcov counters of a
// checker built with --coverage, against a file of the branches no scenario reaches, each with
// its reason (verify/kernel/kernel_coverage_exceptions.txt).
#pragma once
#include <string>
#include <vector>
#include "verify/coverage/coverage.hpp"

// The default exceptions file, in the source tree vmaverify was built from.
std::string default_kernel_coverage_exceptions();

// The exceptions file, its entries naming kernel files ("kernel/locking/rwsem.c | CODE | WHY"), each
// one the checker compiles code from (generated_sources' #line rows); false with
// "FILE:LINE: what is wrong" in *err.
bool read_kernel_coverage_exceptions(const std::string& path, const std::vector<std::string>& generated_sources,
                                     std::vector<CoverageException>* out, std::string* err);

// From gcov's JSON (gcov --json-format --stdout, one document per unit) and the extracted
// translation units (their #line rows say which kernel file and line each line is, and give each
// gap's code): per extracted function its lines and branches, and each line not fully reached.
// Branches of C++ exception edges are not the kernel's and are left out. False with *err on
// input that is not gcov's JSON.
bool kernel_coverage_report(const std::string& gcov_json, const std::vector<std::string>& generated_sources,
                            std::vector<CoverageException>* exceptions, CoverageReport* out, std::string* err);
