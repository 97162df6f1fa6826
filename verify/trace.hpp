// Counterexample traces: the readable text, the saved file, and reading it back for replay.
#pragma once
#include <string>
#include "verify/result.hpp"

// The readable trace of a counterexample.
std::string trace_text(const RunResult& r);
// Write FILE (JSON, the replayable form) and FILE.txt (the readable form).
bool write_trace(const std::string& file, const RunResult& r, std::string* err);
// Read what write_trace wrote: scenario, mutant, search, state, and the failure it recorded.
bool read_trace(const std::string& file, RunResult* r, std::string* err);
