// Differential tests of the reduction (source-DPOR with sleep sets; tests/reduction/README.md, "The reduction"):
// wherever plain full search ends, the reduced search gives the same verdict, reaches the same
// batch states and the same figures (a race the reduction had to answer by exploring every
// thread shows as the figure "reduction fallbacks", and an event whose type the reduction had
// to read from its text as "events read from text", so either fails here), catches every mutant
// with the same failure kind, in no more iterations.
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include "model/batch_states.hpp"
#include "model/mutants.hpp"
#include "verify/search/scenario.hpp"

namespace exploration {
extern bool g_check_event_fields;  // verify/search/shard_scheduler.hpp (which brings Relacy's macros)
}

namespace {

// Plain full searches longer than this are left to the benchmark (rwsem_agrees: 2 million).
constexpr uint64_t kPlainBudget = 500000;

struct Explored {
  RunResult r;
  std::vector<BatchSnapshot> states;
};

Explored explore(const Scenario& s, bool reduce, const std::string& mutant = "none", uint64_t budget = 0) {
  RunOptions o;
  o.mutant = mutant;
  o.reduce = reduce;
  o.budget = budget;
  SearchSpec::parse("full", &o.search, nullptr);
  Explored e;
  e.r = run_scenario(s, o, true);
  e.states = explored_batch_states();
  auto less = [](const BatchSnapshot& a, const BatchSnapshot& b) { return std::memcmp(&a, &b, sizeof a) < 0; };
  std::sort(e.states.begin(), e.states.end(), less);
  return e;
}

bool same_states(const std::vector<BatchSnapshot>& a, const std::vector<BatchSnapshot>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const BatchSnapshot& x, const BatchSnapshot& y) {
           return std::memcmp(&x, &y, sizeof x) == 0;
         });
}

}  // namespace

TEST(Reduction, SameVerdictStatesAndFiguresOnEveryScenario) {
  uint64_t plain_total = 0, reduced_total = 0;
  int compared = 0;
  for (const Scenario& s : all_scenarios()) {
    const Explored plain = explore(s, false, "none", kPlainBudget);
    if (plain.r.result == "incomplete") continue;  // plain full search does not end in budget
    const Explored reduced = explore(s, true);
    compared++;
    EXPECT_EQ(reduced.r.result, plain.r.result) << s.name;
    EXPECT_EQ(reduced.r.kind, plain.r.kind) << s.name;
    EXPECT_TRUE(same_states(reduced.states, plain.states))
        << s.name << ": " << reduced.states.size() << " batch states reduced, " << plain.states.size() << " plain";
    std::map<std::string, long> reduced_stats = reduced.r.stats;
    for (auto it = reduced_stats.begin(); it != reduced_stats.end();)  // the reduction's own counts
      it = it->first.rfind("reduction: ", 0) == 0 ? reduced_stats.erase(it) : std::next(it);
    EXPECT_EQ(reduced_stats, plain.r.stats) << s.name;
    EXPECT_LE(reduced.r.iterations, plain.r.iterations) << s.name;
    plain_total += plain.r.iterations;
    reduced_total += reduced.r.iterations;
    std::printf("%-32s plain %9llu  reduced %8llu  ratio %6.1f\n", s.name.c_str(), (unsigned long long)plain.r.iterations,
                (unsigned long long)reduced.r.iterations, (double)plain.r.iterations / std::max<uint64_t>(1, reduced.r.iterations));
  }
  EXPECT_GE(compared, 15);
  std::printf("all %d: plain %llu, reduced %llu, ratio %.1f\n", compared, (unsigned long long)plain_total,
              (unsigned long long)reduced_total, (double)plain_total / std::max<uint64_t>(1, reduced_total));
  EXPECT_LT(reduced_total * 20, plain_total) << "the reduction no longer reduces";
}

// The reduction reads the events of known types from their fields (verify/search/footprint_types.cpp):
// on scenarios of every kind of shared object, each event read from its fields reads as its text.
TEST(Reduction, EventFieldsReadAsTheirText) {
  exploration::g_check_event_fields = true;
  for (const char* name : {"rwsem_handoff", "rwsem_stale_wakeup", "rwsem_agrees", "teardown_library_vs_mmap"}) {
    const Scenario* s = find_scenario(name);
    ASSERT_NE(s, nullptr) << name;
    const Explored e = explore(*s, true);
    EXPECT_EQ(e.r.result, "verified") << name;
    EXPECT_EQ(e.r.stats.count("event fields unlike text"), 0u) << name << ": " << e.r.stats.at("event fields unlike text");
    EXPECT_EQ(e.r.stats.count("events read from text"), 0u) << name;
  }
  exploration::g_check_event_fields = false;
}

// Every mutant that plain full search catches within the budget is caught by the reduced search
// with the same kind, within the same budget.
TEST(Reduction, CatchesEveryMutantWithTheSameKind) {
  for (const MutantInfo& m : all_mutants()) {
    const Scenario* s = find_scenario(m.caught_by);
    ASSERT_NE(s, nullptr) << m.name;
    const Explored plain = explore(*s, false, m.name, kPlainBudget);
    if (plain.r.result == "incomplete") continue;
    // A skipped iteration is equivalent to one explored before it: the reduced search fails no later.
    const Explored reduced = explore(*s, true, m.name, kPlainBudget);
    EXPECT_EQ(reduced.r.result, plain.r.result) << m.name;
    EXPECT_EQ(reduced.r.kind, plain.r.kind) << m.name;
    EXPECT_EQ(reduced.r.kind, m.kind) << m.name;
  }
}

// A counterexample of the reduced search replays (its state is Relacy's, as plain search's).
TEST(Reduction, CounterexampleCarriesAReplayableState) {
  const Explored e = explore(*find_scenario("rwsem_reader_writer"), true, "up_read_no_wake");
  ASSERT_EQ(e.r.result, "counterexample");
  EXPECT_EQ(e.r.kind, "deadlock");
  EXPECT_FALSE(e.r.state.empty());
  ASSERT_FALSE(e.r.events.empty());
  RunOptions o;
  o.mutant = "up_read_no_wake";
  o.initial_state = e.r.state;
  SearchSpec::parse("full", &o.search, nullptr);
  const RunResult again = run_scenario(*find_scenario("rwsem_reader_writer"), o, true);
  EXPECT_EQ(again.kind, "deadlock");
  EXPECT_EQ(again.failing_step, e.r.failing_step);
}

// A reduced search reports its own figures (the first counts asked for to compare classes with
// other checkers'): its sleep-set blocked iterations and the backtrack points each kind of race
// added. A plain search has none.
TEST(Reduction, ReportsItsBlockedIterationsBacktracksByRaceKindAndLoadFloors) {
  const Explored reduced = explore(*find_scenario("rwsem_readers_writer"), true);
  ASSERT_EQ(reduced.r.result, "verified") << reduced.r.message;
  long backtracks = 0;
  for (const char* kind : {"read/write", "write/write", "fence order", "lock order", "global step"}) {
    const std::string key = std::string("reduction: backtracks from ") + kind + " races";
    ASSERT_EQ(reduced.r.stats.count(key), 1u) << key;
    backtracks += reduced.r.stats.at(key);
  }
  EXPECT_GE(backtracks, 1);
  EXPECT_GT(reduced.r.stats.at("reduction: backtracks from read/write races"), 0);
  ASSERT_EQ(reduced.r.stats.count("reduction: blocked iterations"), 1u);
  EXPECT_LT(reduced.r.stats.at("reduction: blocked iterations"), (long)reduced.r.iterations);
  // The load floor (tests/reduction/README.md) kept loads to the newest store, and every step it
  // pruned in was the sleeper's one load.
  ASSERT_EQ(reduced.r.stats.count("reduction: loads kept to the newest store"), 1u);
  EXPECT_GT(reduced.r.stats.at("reduction: loads kept to the newest store"), 0);
  EXPECT_EQ(reduced.r.stats.count("reduction: load floors dropped"), 0u);
  // Races of two fences that no later step told apart were left unreversed (fences_used).
  ASSERT_EQ(reduced.r.stats.count("reduction: fence races left unreversed"), 1u);
  EXPECT_GT(reduced.r.stats.at("reduction: fence races left unreversed"), 0);
  const Explored plain = explore(*find_scenario("rwsem_two_writers"), false);
  for (const auto& kv : plain.r.stats) EXPECT_NE(kv.first.rfind("reduction: ", 0), 0u) << kv.first;
}
