// Shortest counterexamples: after a failure, look for a failing interleaving of the same kind
// with fewer preemptions, by context-bounded search from bound 0 upward (Relacy's own
// context_bound_scheduler: bound:k explores every interleaving with at most k preemptions).
#pragma once
#include <cstdint>
#include "verify/search/scenario.hpp"

struct Minimized {
  RunResult result;           // the counterexample to report: the one with the fewest preemptions found
  int preemptions = 0;        // its preemptions (the bound it was found under, or counted in the trace)
  int original_preemptions = 0;
  bool shortest = false;      // every smaller bound was searched to the end without this kind of failure
  uint64_t iterations = 0;    // spent on the bounded searches
  std::string note;           // one line for the text output
};

// `found` is the counterexample run_scenario(s, o) returned. At most `budget` iterations in all
// go to the bounded searches; budget 0 keeps `found`.
Minimized minimize_counterexample(const Scenario& s, const RunOptions& o, const RunResult& found, uint64_t budget);
