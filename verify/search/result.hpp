// What one exploration is asked to do, and what it found.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

struct SearchSpec {
  enum class Kind { full, bound, random };
  Kind kind = Kind::full;
  unsigned n = 0;  // context bound, or number of random iterations
  bool reduce = false;  // full+reduce: full search pruned with sleep sets (README, "The reduction")

  std::string str() const;
  // "full", "full+reduce", "bound:N" or "random:N"; false with *err set otherwise. Hand-written: the model's
  // own three-form grammar, read from scenario tables and traces too; CLI11 checks --search with it.
  static bool parse(const std::string& text, SearchSpec* out, std::string* err);
};

struct RunOptions {
  std::string mutant = "none";
  SearchSpec search;
  uint64_t budget = 0;        // most iterations to explore; 0 = no limit
  std::string initial_state;  // a saved search state: replay exactly that interleaving
  bool progress = false;      // report progress of long searches on stderr
  bool unbatched = false;     // teardown threads run the pre-patch free_pgtables (the baseline)
  unsigned shard_index = 0, shard_count = 1;  // full search: explore shard shard_index of shard_count
  bool reduce = false;        // full search: prune with sleep sets (README, "The reduction")
  bool sharded = false;       // one shard of a search (run --shard, or a --jobs process): say which
  unsigned steal_jobs = 1;    // reduced full search: processes sharing it by work-stealing (run --jobs)
};

// One step of a counterexample, from Relacy's execution history, in the model's terms.
struct TraceEvent {
  int step = 0;          // Relacy's history index
  int thread = 0;
  std::string function;  // the model function it happened in (a kernel function name)
  std::string object;    // "count of i_mmap_rwsem of A", "PTE table 0x7fbf22400000 of exiting process", or the raw address
  std::string operation; // "load", "store", "fetch_add", "CAS succ", "mutex: exclusive lock", ...
  std::string value;
  std::string order;     // memory order, for atomics
  std::string source;    // file:line, relative to the project
  bool failing = false;  // the step where the failure was detected
  std::string chain;     // the kernel call chain it happened in, outermost first (model/call_chain.hpp)
};

struct RunResult {
  std::string scenario, mutant = "none", search;
  std::string variant = "batched";  // or "unbatched": the pre-patch baseline
  std::string result;   // verified | counterexample | incomplete
  std::string kind;     // failure kind: data race, deadlock, use-after-free, ...
  std::string message;  // one line: what went wrong
  uint64_t iterations = 0;
  double seconds = 0;
  std::string history;  // Relacy's execution history of the failing interleaving, as printed
  std::vector<TraceEvent> events;  // the same, filtered to the model's events and named
  // Kernel mode: the lines of the tree's files the events cite, as the checker compiled them
  // (patches applied), file -> line -> text; the HTML report makes pages of them.
  std::map<std::string, std::map<int, std::string>> source_lines;
  int failing_step = -1;
  std::string state;    // search state that replays the failing interleaving
  std::map<std::string, long> stats;  // scenario figures, e.g. write-lock acquisitions
  std::string violated_spec;  // a spec file some explored batch state violates
  std::string shard;          // "I/N" when one shard of a full search was explored
  // A shard's search, as merge checks it: the search it ran (full or full+reduce, even when its
  // counterexample was then minimised under a bounded one), its budget, and a fingerprint of
  // both with the build, the model, the scenario, mutant and variant, and the slicing.
  std::string shard_search, fingerprint;
  uint64_t budget = 0;
};
