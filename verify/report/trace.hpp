// Counterexample traces: Relacy's execution history turned into the model's events, the
// readable text, the saved files (JSON + text), and reading them back for replay.
#pragma once
#include <string>
#include <vector>
#include "verify/search/result.hpp"

// Parse the history Relacy printed for a failing iteration: keep the threads' own events (drop
// the set-up in constructors and Relacy's bookkeeping), name objects through the names the
// model registered (model/trace_names.hpp), and make source paths project-relative.
std::vector<TraceEvent> parse_relacy_history(const std::string& output);

// TraceEvent::thread of a check that ran at the end of the run (after every thread finished,
// or Relacy's own deadlock detection), in no thread.
constexpr int kEndOfRun = -1;

// Whether a row wrote its object: a store, an exchange, a read-modify-write or a compare-exchange
// that replaced the value.
bool row_writes(const TraceEvent& e);

// The readable trace: a summary line, a legend, then one line per event in aligned columns,
// with a thread tag and, last, the state after it (verify/report/trace_state.hpp); the failing
// step is marked with ">>". Relacy's internal event rows (rl::event's "event: reset ...") only
// when raw; the function column shows each row's kernel call chain when chains.
std::string trace_text(const RunResult& r, bool raw = false, bool chains = false);
std::string trace_json(const RunResult& r);

// The schema name every trace carries; README, "Counterexample traces".
// /2 added model_hash, binary_hash and fingerprint.
constexpr const char* kTraceSchema = "vmaverify-trace/2";
// Far above any trace an iteration can produce (Relacy's execution depth limit bounds the events).
constexpr long long kMaxTraceBytes = 64LL << 20;

// Write FILE (JSON, the replayable form; schema in README) and FILE.txt (the readable form).
bool write_trace(const std::string& file, const RunResult& r, std::string* err, bool raw = false, bool chains = false);
// What a trace says about the build that recorded it.
struct TraceOrigin {
  std::string model_hash;   // of the model sources (model/, the scenarios and their world)
  std::string binary_hash;  // of the vmaverify binary
};
TraceOrigin current_origin();
// Binds the fields that decide what replay runs (scenario, mutant, variant, search, state).
std::string trace_fingerprint(const RunResult& r);

// Read what write_trace wrote; false with *err (naming the file and the field, or for bad JSON
// the position) otherwise. *fingerprint gets the recorded trace_fingerprint.
bool read_trace(const std::string& file, RunResult* r, std::string* err, TraceOrigin* origin = nullptr,
                std::string* fingerprint = nullptr);
// The same from the file's text (file only names it in errors).
bool read_trace_text(const std::string& file, const std::string& text, RunResult* r, std::string* err,
                     TraceOrigin* origin = nullptr, std::string* fingerprint = nullptr);
// The rows `vmaverify report` draws, from a trace's text (file names it in errors): the events,
// the search statistics and a kernel trace's source lines; false with *err (naming the file,
// the event and the field) for a trace that lacks them or has them malformed.
bool read_trace_rows(const std::string& file, const std::string& text, RunResult* r, std::string* err);
// Why a trace's replay fields cannot be replayed together, or "" when they can: an unknown
// mutant, a search that is not full, bound:N or random:N, no failure kind, no state, or fields
// not recorded together (fingerprint mismatch). The scenario and variant are the caller's.
std::string trace_replay_problem(const std::string& file, const RunResult& saved, const std::string& fingerprint);
// Why a replay of saved's run is not the recorded failure (another result, kind or failing
// step), or "" when it is.
std::string replay_difference(const RunResult& saved, const RunResult& replayed);
