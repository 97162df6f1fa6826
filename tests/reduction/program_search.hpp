// Runs a program (tests/reduction/program.hpp) under vmaverify's full search
// (verify/search/shard_scheduler.hpp), plain or reduced, whole or one shard, with or without twins,
// and collects every outcome its iterations reached.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include "tests/reduction/program.hpp"

namespace program {

struct SearchOptions {
  bool reduce = false;
  unsigned shard = 0, shards = 1;
  bool twins = false;     // thread 1 declared thread 0's twin
  uint64_t budget = 0;    // iterations; 0 for none
  unsigned jobs = 1;      // reduced: processes sharing the search by work-stealing
  uint64_t split_delay = 0;  // work-stealing: iterations a process runs before it may split
  bool serial = false;       // work-stealing: one process at a time, a worker before its parent
};

struct SearchResult {
  std::string failure;    // "" when every iteration passed; else the kind ("deadlock", "data race",
                          // ...), "budget" when the budget ran out, "bad twin" on a twin misuse
  uint64_t iterations = 0;
  unsigned processes = 1;       // work-stealing: the processes that took part
  uint64_t floor_loads = 0;     // reduced, one process: loads the load floor kept to the newest store
  uint64_t fences_unused = 0;   // reduced, one process: fence races left unreversed (nothing told their order apart)
  std::set<uint64_t> outcomes;  // of the iterations that ended (twins' registers in canonical order)
};

SearchResult search(const Program& p, const SearchOptions& o);

}  // namespace program
