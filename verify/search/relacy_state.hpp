// Relacy's saved search state (what a trace's "state" holds), checked before Relacy reads it:
// Relacy trusts it completely, and an index out of range is an out-of-bounds access in its
// scheduler or in the model, a huge count a huge allocation.
#pragma once
#include <string>
#include "verify/search/result.hpp"

// Most decision nodes a state may have: far more than one iteration can make (Relacy's
// execution depth limit bounds the steps, each a few decisions).
constexpr unsigned long kMaxStateNodes = 1000000;

// The format (full_search_scheduler.hpp, get_state_impl): the iteration, then for full and
// bound searches a node count and (count, index, type) per node. Random search saves the
// iteration only, which must be one of its 1..N. Each node's count must be one the scheduler can
// ask for with `threads` threads (sched_type: 0 sched <= threads, 1 atomic load 2, 2 CAS
// failure and 3 reallocation 2 or 4, 4 user <= 4 * threads) and its index below its count.
// False with *why naming the part that is wrong.
bool relacy_state_valid(const std::string& state, const SearchSpec& search, unsigned threads, std::string* why);
