// Branch coverage of the modelled kernel functions: which lines and branches of the model the
// explored scenarios (and the mutant runs) reached, from the compiler's own gcov counters as
// gcovr reports them, against a file of branches that cannot be reached, each with its reason.
#pragma once
#include <functional>
#include <string>
#include <vector>
#include <nlohmann/json_fwd.hpp>

// A model file whose functions stand for a kernel file's.
struct CoveredFile {
  const char* model;   // relative to the source tree, e.g. "model/rwsem_count.hpp"
  const char* kernel;  // e.g. "kernel/locking/rwsem.c"
};
const std::vector<CoveredFile>& covered_files();

// One line of the exceptions file: "MODEL FILE | SOURCE TEXT | REASON"; the source text is the
// line's code, trimmed (a prefix of it is enough), so that exceptions survive edits elsewhere.
struct CoverageException {
  std::string file, text, reason;
  int line = 0;  // where in the exceptions file
  bool used = false;
};
// Parses the exceptions file; false with "FILE:LINE: what is wrong" in *err. known: which files
// an entry may name (default: the covered model files).
bool read_coverage_exceptions(const std::string& path, std::vector<CoverageException>* out, std::string* err,
                              const std::function<bool(const std::string&)>& known = nullptr);

// A line of a model function that some run did not fully reach.
struct CoverageGap {
  std::string file, function, code;
  int line = 0;
  int branches = 0, branches_taken = 0;  // branches == 0: the line itself never ran
  const CoverageException* excepted = nullptr;
};
struct FunctionCoverage {
  std::string file, kernel_file, name;
  int lines = 0, lines_run = 0, branches = 0, branches_taken = 0;
};
struct CoverageReport {
  std::vector<FunctionCoverage> functions;
  std::vector<CoverageGap> gaps;
  int unexcepted_gaps() const;
};

// From gcovr's JSON (--json) and the sources (for each gap's code); false with *err on a
// report that is not gcovr's.
bool coverage_report(const nlohmann::json& gcovr, const std::string& source_dir,
                     std::vector<CoverageException>* exceptions, CoverageReport* out, std::string* err);

// The report as text, one function per line and one line per gap.
std::string coverage_text(const CoverageReport& r, const std::vector<CoverageException>& exceptions);
// The short form for `vmaverify all`: each model file's totals and the gaps outside the exceptions.
std::string coverage_summary_text(const CoverageReport& r, const std::vector<CoverageException>& exceptions);
