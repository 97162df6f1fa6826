// The distinct batch states an exploration reaches, kept for checking the Z3 specs against
// them. Fixed storage: states are recorded inside Relacy iterations, where allocation is not free.
#pragma once
#include <vector>
#include "proofs/batch_state.hpp"

void record_batch_state(const BatchSnapshot& s);
void reset_batch_states();
// Read between explorations (outside Relacy).
std::vector<BatchSnapshot> explored_batch_states();
// States that did not fit in the table (then the spec check is incomplete).
long dropped_batch_states();
