// Counterexample traces: Relacy's execution history turned into the model's events, the
// readable text, the saved files (JSON + text), and reading them back for replay.
#pragma once
#include <string>
#include <vector>
#include "verify/result.hpp"

// Parse the history Relacy printed for a failing iteration: keep the threads' own events (drop
// the set-up in constructors and Relacy's bookkeeping), name objects through the names the
// model registered (model/trace_names.hpp), and make source paths project-relative.
std::vector<TraceEvent> parse_relacy_history(const std::string& output);

// The readable trace: a summary line, then one line per event with a thread tag; the failing
// step is marked with ">>".
std::string trace_text(const RunResult& r);
std::string trace_json(const RunResult& r);

// The schema name every trace carries; README, "Counterexample traces".
constexpr const char* kTraceSchema = "vmaverify-trace/1";
// Far above any trace an iteration can produce (Relacy's execution depth limit bounds the events).
constexpr long long kMaxTraceBytes = 64LL << 20;

// Write FILE (JSON, the replayable form; schema in README) and FILE.txt (the readable form).
bool write_trace(const std::string& file, const RunResult& r, std::string* err);
// Read what write_trace wrote; false with *err (naming the file and, for bad JSON, the position) otherwise.
bool read_trace(const std::string& file, RunResult* r, std::string* err);
// The same from the file's text (file only names it in errors).
bool read_trace_text(const std::string& file, const std::string& text, RunResult* r, std::string* err);
