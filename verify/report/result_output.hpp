// What the commands print for a result: one line of text, or one JSON object; and its exit status.
#pragma once
#include <string>
#include <nlohmann/json_fwd.hpp>
#include "verify/checks/all.hpp"
#include "verify/search/result.hpp"

// Exit status of one exploration result (statuses in verify/cli/cli.hpp).
int exit_status(const RunResult& r);

std::string result_text(const RunResult& r);
// Schema in README ("Using it", run --json).
nlohmann::ordered_json result_json(const RunResult& r);
// One line of `all --json`: `group` (scenarios, baselines, mutants, conformance, proofs), then
// result_json, `expected`, `as_expected` and, when one was written, `trace` (the trace file).
nlohmann::ordered_json outcome_json(const Outcome& o, const std::string& trace_file);
// The last line of `all --json`: group "summary" and the counts of the text output's last line.
nlohmann::ordered_json summary_json(int checked, int unexpected, int incomplete, double seconds);
