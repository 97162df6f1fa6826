// The reducer tested against plain search on thousands of random programs
// (tests/reduction/program.hpp): each program is searched plainly, reduced whole, reduced in
// 2 to 5 shards, and (when its threads 0 and 1 run the same code) with twins, plain and reduced.
// One in 20 is also searched reduced by work-stealing in as many processes as it has shards,
// its processes splitting at once or after a quarter or half of one process's iterations, half
// of those searches one process at a time.
// Every search must end the same way (pass, or fail with the same kind) and reach exactly the
// outcomes plain search reaches. A difference is printed as a minimal program in the litmus
// files' text form, with the seed that generated it.
//
// VMAVERIFY_RANDOM_PROGRAMS=N compares N programs (default 10,000; those whose plain search
// does not end within its budget are skipped and replaced), VMAVERIFY_RANDOM_CPU_PROGRAMS=N
// as many programs with tasks on CPUs (default 4,000); VMAVERIFY_RANDOM_SEED=S starts from
// another seed.
#include <gtest/gtest.h>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include "tests/reduction/program_search.hpp"

namespace {

using program::Program;
using program::SearchOptions;
using program::SearchResult;

// Plain searches longer than this are skipped (a few programs of 4 threads with relaxed loads).
constexpr uint64_t kPlainBudget = 100000;

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

struct Tally {
  uint64_t compared = 0, skipped = 0, twins = 0, bad_twins = 0, failing = 0;
  uint64_t stolen = 0, split = 0;  // programs searched by work-stealing; those whose search did split
  uint64_t split_iterations = 0, split_one_process = 0;  // those: all processes' iterations; one process's
  uint64_t plain_iterations = 0, reduced_iterations = 0, floor_loads = 0, fences_unused = 0;
};

std::string outcomes_text(const Program& p, const std::set<uint64_t>& s) {
  std::string t;
  for (uint64_t o : s) t += "  " + program::outcome_text(p, o) + "\n";
  return t;
}

// A search's failure as the comparison sees it: with tasks on CPUs a deadlock and a livelock
// (the assertion of model/preempt.cpp) are one failure, getting stuck (program::generate).
std::string failure_class(const Program& p, const std::string& failure) {
  if (p.has_cpus() && (failure == "deadlock" || failure == "USER ASSERT FAILED")) return "stuck (deadlock or livelock)";
  return failure;
}

// How `got` differs from plain search's `want`; "" when it does not.
std::string difference(const Program& p, const char* what, const SearchResult& want, const SearchResult& got) {
  if (failure_class(p, got.failure) != failure_class(p, want.failure))
    return std::string(what) + ": " + (got.failure.empty() ? "passes" : got.failure) + ", plain search: " +
           (want.failure.empty() ? "passes" : want.failure);
  if (!want.failure.empty() || got.outcomes == want.outcomes) return "";
  std::set<uint64_t> lost, extra;
  for (uint64_t o : want.outcomes)
    if (!got.outcomes.count(o)) lost.insert(o);
  for (uint64_t o : got.outcomes)
    if (!want.outcomes.count(o)) extra.insert(o);
  return std::string(what) + ": " + (lost.empty() ? "" : "outcomes lost:\n" + outcomes_text(p, lost)) +
         (extra.empty() ? "" : "outcomes plain search never reaches:\n" + outcomes_text(p, extra));
}

// How a program is searched by work-stealing: each process splits once it has run `quarters`
// quarters of the iterations one process takes; serial: one process at a time, each worker
// before its parent goes on.
struct Stealing {
  unsigned quarters;
  bool serial;
};

// Every search of p against plain search: the first difference, "" if none. `skip` when plain
// search did not end within its budget. With `stealing`, also by work-stealing.
std::string check(const Program& p, unsigned shards, Tally* tally, bool* skip, std::optional<Stealing> stealing) {
  const SearchResult plain = program::search(p, {false, 0, 1, false, kPlainBudget});
  *skip = plain.failure == "budget";
  if (*skip) return "";
  if (plain.failure == "too many outcomes") return "plain search: more outcomes than the table holds";
  SearchOptions reduced;
  reduced.reduce = true;
  const SearchResult whole = program::search(p, reduced);
  if (p.heap == program::Heap::unlogged) {  // a failure found stands; a pass is void
    SearchResult void_pass = plain;
    if (plain.failure.empty()) void_pass.failure = "unnamed heap objects";
    return difference(p, "reduced, its objects in a block allocated unlogged", void_pass, whole);
  }
  std::string d = difference(p, "reduced", plain, whole);
  if (!d.empty()) return d;
  if (whole.iterations > plain.iterations)
    return "reduced: " + std::to_string(whole.iterations) + " iterations, more than plain search's " +
           std::to_string(plain.iterations);
  SearchResult parts;
  for (unsigned i = 0; i < shards; i++) {
    reduced.shard = i;
    reduced.shards = shards;
    const SearchResult part = program::search(p, reduced);
    if (!part.failure.empty() && parts.failure.empty()) parts.failure = part.failure;
    parts.outcomes.insert(part.outcomes.begin(), part.outcomes.end());
  }
  d = difference(p, ("reduced in " + std::to_string(shards) + " shards").c_str(), plain, parts);
  if (!d.empty()) return d;
  if (stealing) {
    reduced.shard = 0;
    reduced.shards = 1;
    reduced.jobs = shards;
    reduced.split_delay = whole.iterations * stealing->quarters / 4;
    reduced.serial = stealing->serial;
    const SearchResult stolen = program::search(p, reduced);
    d = difference(p, ("reduced by work-stealing in " + std::to_string(shards) + " processes").c_str(), plain, stolen);
    if (!d.empty()) return d;
    if (tally) {
      tally->stolen++;
      if (stolen.processes > 1)
        tally->split++, tally->split_iterations += stolen.iterations, tally->split_one_process += whole.iterations;
    }
  }
  if (tally) {
    tally->plain_iterations += plain.iterations;
    tally->reduced_iterations += whole.iterations;
    tally->floor_loads += whole.floor_loads;
    tally->fences_unused += whole.fences_unused;
    tally->failing += !plain.failure.empty();
  }
  if (!p.symmetric) return "";
  for (bool reduce : {false, true}) {
    const SearchResult twins = program::search(p, {reduce, 0, 1, true, 0});
    if (twins.failure == "bad twin") {  // a twin blocked or ended before touching shared state
      if (tally) tally->bad_twins += reduce;
      continue;
    }
    if (tally) tally->twins += reduce;
    d = difference(p, reduce ? "reduced with twins" : "plain with twins", plain, twins);
    if (!d.empty()) return d;
  }
  return "";
}

// Removes operations while the difference stays.
Program shrink(Program p, unsigned shards, std::optional<Stealing> stealing) {
  for (bool smaller = true; smaller;) {
    smaller = false;
    for (unsigned i = 0; i < program::op_count(p); i++) {
      Program q;
      bool skip = false;
      if (!program::without_op(p, i, &q) || check(q, shards, nullptr, &skip, stealing).empty() || skip) continue;
      p = q;
      smaller = true;
      break;
    }
  }
  return p;
}

// Compares `count` generated programs from `seed` on (with `cpus`, programs whose tasks are on
// CPUs; with `fenced`, programs of atomics and seq_cst fences).
void compare_programs(uint64_t count, uint64_t seed, bool cpus, bool fenced = false) {
  Tally tally;
  int reported = 0;
  for (uint64_t i = 0; tally.compared < count && i < 2 * count && reported < 3; i++) {
    std::mt19937_64 rng(seed + i);
    Program p = program::generate(rng, i % 2 == 0, cpus, fenced);
    const unsigned shards = 2 + (unsigned)(rng() % 4);
    // One in four keeps its atomics and variables on Relacy's heap, at an address that moves
    // from run to run (a footprint must name them by their block); one in 32 in a block
    // allocated unlogged (the reduced search must refuse to pass).
    p.heap = i % 4 == 1 ? program::Heap::logged : i % 32 == 3 ? program::Heap::unlogged : program::Heap::none;
    // Two in three announce their mutexes and events, which are then named by the primitives;
    // the others' are named by where Relacy keeps their state, which moves from run to run.
    p.sync_named = i % 3 != 2;
    bool skip = false;
    // Forks cost: one program in 20, and one heap program in 40 besides (tasks on CPUs: never
    // split). A split at the first free place falls near the root, later ones deeper, where a
    // worker may take a choice above its split. Half run one process at a time: the same
    // search on every run, so that a difference shrinks.
    std::optional<Stealing> stealing;
    if (!cpus && (i % 20 == 0 || i % 40 == 5))
      stealing = Stealing{(unsigned)(i / 20 % 3), i / 60 % 2 == 1};
    const std::string d = check(p, shards, &tally, &skip, stealing);
    tally.skipped += skip;
    tally.compared += !skip;
    if (d.empty()) continue;
    reported++;
    const Program small = shrink(p, shards, stealing);
    bool ignored;
    ADD_FAILURE() << "program " << i << " (VMAVERIFY_RANDOM_SEED=" << seed + i << " VMAVERIFY_RANDOM_PROGRAMS=1), "
                  << shards << " shards:\n"
                  << p.text() << d << "\nminimal program:\n"
                  << small.text() << check(small, shards, nullptr, &ignored, stealing);
  }
  std::printf("%llu programs compared (%llu failing), %llu skipped (plain search over %llu iterations); "
              "%llu with twins (%llu more with a misused twin); iterations plain %llu, reduced %llu "
              "(%llu loads kept to the newest store, %llu fence races left unreversed); %llu searched by "
              "work-stealing, %llu of them split (iterations %llu, in one process %llu)\n",
              (unsigned long long)tally.compared, (unsigned long long)tally.failing, (unsigned long long)tally.skipped,
              (unsigned long long)kPlainBudget, (unsigned long long)tally.twins, (unsigned long long)tally.bad_twins,
              (unsigned long long)tally.plain_iterations, (unsigned long long)tally.reduced_iterations,
              (unsigned long long)tally.floor_loads, (unsigned long long)tally.fences_unused,
              (unsigned long long)tally.stolen, (unsigned long long)tally.split,
              (unsigned long long)tally.split_iterations, (unsigned long long)tally.split_one_process);
  if (reported == 0) {
    EXPECT_EQ(tally.compared, count) << "too many programs skipped";
    // Work-stealing compared only where it split: most programs' searches have work to give.
    EXPECT_GE(tally.split * 3, tally.stolen) << "too few work-stealing searches split";
    // The load floor is compared too: it pruned loads in these programs.
    if (!cpus && count >= 100) EXPECT_GT(tally.floor_loads, 0u) << "the load floor never applied";
    // The fences' races are compared too: some were left unreversed in these programs.
    if (fenced && count >= 100) EXPECT_GT(tally.fences_unused, 0u) << "every fence race was reversed";
  }
}

}  // namespace

TEST(RandomPrograms, ReducedShardedAndTwinSearchesReachWhatPlainSearchReaches) {
  compare_programs(env_or("VMAVERIFY_RANDOM_PROGRAMS", 10000), env_or("VMAVERIFY_RANDOM_SEED", 20261205), false);
}

// Programs of atomics and seq_cst fences: a race of two fences is reversed only once a later
// step may tell their order apart (verify/search/shard_scheduler.hpp, fences_used).
TEST(RandomPrograms, FencedProgramsReachWhatPlainSearchReaches) {
  compare_programs(env_or("VMAVERIFY_RANDOM_FENCED_PROGRAMS", 3000), env_or("VMAVERIFY_RANDOM_SEED", 20261205), false, true);
}

// Tasks on two CPUs (model/preempt.hpp): the reduction orders steps through their CPUs' states
// (verify/search/shard_scheduler.hpp, add_cpu_states), which plain search never needs.
TEST(RandomPrograms, TasksOnCpusReachWhatPlainSearchReaches) {
  compare_programs(env_or("VMAVERIFY_RANDOM_CPU_PROGRAMS", 4000), env_or("VMAVERIFY_RANDOM_SEED", 20261205), true);
}
