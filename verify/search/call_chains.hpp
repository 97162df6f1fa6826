// The kernel call chain of each row of a counterexample trace (TraceEvent::chain): while the
// driver replays the run a trace is made of, every change to a task's frames
// (model/call_chain.hpp) is recorded with the position in Relacy's history it happened at; a row
// of that task gets the chain in effect when Relacy recorded it.
#pragma once
#include <vector>
#include "verify/search/result.hpp"

namespace exploration {

// Start recording (before the run: what it needs is allocated here, not in the iteration).
void call_chains_begin();
// Stop recording; the chains stay until the next begin.
void call_chains_end();
// Each event's chain, outermost first, " → "-separated ("" if its task had no frame open), from
// the recording that ended last; nothing if that recording's chains were assigned already.
void assign_call_chains(std::vector<TraceEvent>* events);

}  // namespace exploration
