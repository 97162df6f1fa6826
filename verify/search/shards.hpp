// Splitting a full search into shards (verify/search/shard_scheduler.hpp) and combining their results:
// `run --shard I/N` explores one, `run --jobs N` runs N local processes, `merge` combines files.
#pragma once
#include <string>
#include <vector>
#include "verify/search/result.hpp"
#include "verify/search/scenario.hpp"

// Most shards of one search: enough for any CI matrix or batch scheduler.
constexpr unsigned kMaxShards = 4096;

// "I/N" with 0 <= I < N <= kMaxShards; false with *err set otherwise.
bool parse_shard(const std::string& text, unsigned* index, unsigned* count, std::string* err);

// A shard's fingerprint: this build and model, the result's scenario, mutant, variant,
// shard_search, budget, shard count and the slicing (RunResult::fingerprint).
std::string search_fingerprint(const RunResult& r);

// One verdict from every shard of one search (each index 0..N-1 exactly once, each carrying
// the fingerprint of the same search under this build): counterexample if any shard found one (the lowest
// shard's), else error if any shard erred, else incomplete if any shard did not finish, else
// verified. Iterations add up, seconds is the longest shard's, each figure the largest shard's.
// False with *err set when the parts are not the shards of one search.
bool merge_shards(const std::vector<RunResult>& parts, RunResult* merged, std::string* err);

// The search split into `jobs` shards, each explored by a child process, merged.
RunResult run_jobs(const Scenario& s, const RunOptions& o, unsigned jobs);
