// Programs whose runs must repeat their recorded choices (repeatable_programs.cpp), searched in
// full by the engine.
#pragma once
#include <set>
#include <string>
#include <utility>

// The (r1, r2) outcomes of T1: z = 1; y = 1 (both relaxed) | T0: r1 = y; r2 = z (both relaxed),
// where z starts zeroed in a slot whose previous occupant left zeros in Relacy's record of it.
// With Relacy's own zero-initialised atomic when `relacy_own` (its defect reproduced), else
// with zeroed_atomic. C++ allows (1, 0): nothing orders z's store before T0's load.
std::set<std::pair<int, int>> message_passing_outcomes(bool relacy_own);

// A program whose thread 0 makes a choice in every other run only (a counter outside the
// runs): the full search must stop and say what differed (*what), not go on with a tree that
// no longer says what ran. False when the search did not notice.
bool nondeterminism_detected(std::string* what);
