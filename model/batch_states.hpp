// The distinct batch states an exploration reaches, kept for checking the Z3 specs against
// them. Fixed storage: states are recorded inside Relacy iterations, where allocation is not free.
#pragma once
#include <vector>
#include "proofs/batch_state.hpp"

void record_batch_state(const BatchSnapshot& s);
// Set by the driver to check each state as it is recorded, failing that interleaving: how an
// explored-state spec violation gets a trace and a replay. Returns false with *message set
// (the spec and why, NUL-terminated, at most size bytes: no allocation inside an iteration)
// when s violates a spec.
extern bool (*g_batch_state_check)(const BatchSnapshot& s, char* message, unsigned size);
void reset_batch_states();
// Read between explorations (outside Relacy).
std::vector<BatchSnapshot> explored_batch_states();
// States that did not fit in the table (then the spec check is incomplete).
long dropped_batch_states();
// Adds states another process of the same search could not keep (work-stealing).
void note_dropped_batch_states(long n);
