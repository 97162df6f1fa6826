// Differential tests of symmetry (tests/reduction/README.md, "Symmetry"): on every scenario that declares twins,
// full search with and without them gives the same verdict and figures (the rw_semaphore
// scenarios record no batch states), in fewer iterations where it ends, and catches each rw_semaphore mutant with the same failure kind.
#include <gtest/gtest.h>
#include <cstdio>
#include "model/mutants.hpp"
#include "verify/search/scenario.hpp"

namespace exploration {
extern bool g_symmetry;  // verify/search/shard_scheduler.hpp (which brings Relacy's macros)
}

namespace {

// Searches with twins longer than this are left to the benchmark (rwsem_two_writers: 197,716),
// and those without them may take twice as long; a mutant is caught within a few thousand.
constexpr uint64_t kBudget = 200000, kMutantBudget = 20000;

RunResult explore(const Scenario& s, bool symmetry, bool reduce, const std::string& mutant = "none",
                  uint64_t budget = kBudget, const char* search = "full") {
  RunOptions o;
  o.mutant = mutant;
  o.reduce = reduce;
  o.budget = budget;
  SearchSpec::parse(search, &o.search, nullptr);
  exploration::g_symmetry = symmetry;
  RunResult r = run_scenario(s, o, true);
  exploration::g_symmetry = true;
  return r;
}

}  // namespace

// The scenario's figures, without the reduction's own counts (which twins change).
static std::map<std::string, long> scenario_figures(const RunResult& r) {
  std::map<std::string, long> f;
  for (const auto& kv : r.stats)
    if (kv.first.rfind("reduction: ", 0) != 0) f.insert(kv);
  return f;
}

TEST(Symmetry, SameVerdictAndFiguresWithoutTwins) {
  int compared = 0;
  for (const Scenario& s : all_scenarios()) {
    if (s.twins == 0) continue;
    for (bool reduce : {false, true}) {
      const RunResult with = explore(s, true, reduce);
      if (with.result == "incomplete") continue;
      const RunResult without = explore(s, false, reduce, "none", 2 * kBudget);
      compared++;
      EXPECT_EQ(with.result, without.result) << s.name;
      EXPECT_EQ(with.kind, without.kind) << s.name;
      EXPECT_EQ(scenario_figures(with), scenario_figures(without)) << s.name;
      EXPECT_LT(with.iterations, without.iterations) << s.name;
      std::printf("%-28s %s without twins %8llu  with %8llu\n", s.name.c_str(), reduce ? "reduced" : "plain  ",
                  (unsigned long long)without.iterations, (unsigned long long)with.iterations);
    }
  }
  EXPECT_GE(compared, 2);
}

// Every mutant of the rw_semaphore, on every scenario with twins: the search with twins fails
// with the same kind whenever the search without them does within the budget.
TEST(Symmetry, CatchesEveryMutantWithTheSameKind) {
  int caught = 0;
  for (const Scenario& s : all_scenarios()) {
    if (s.twins == 0) continue;
    for (const MutantInfo& m : all_mutants()) {
      if (std::string(m.caught_by).rfind("rwsem_", 0) != 0) continue;  // a teardown mutant
      const RunResult without = explore(s, false, true, m.name, kMutantBudget);
      if (without.result != "counterexample") continue;
      const RunResult with = explore(s, true, true, m.name, kMutantBudget);
      caught++;
      EXPECT_EQ(with.result, without.result) << s.name << " " << m.name;
      EXPECT_EQ(with.kind, without.kind) << s.name << " " << m.name;
    }
  }
  EXPECT_GE(caught, 6);
}

// A twin_of claim is checked, not trusted (Dpor.AsymmetricTwinsHideAFailureOnlyASearchWithoutThemFinds:
// a wrong one hides failures): on every scenario with twins, the correct model and every
// rw_semaphore mutant are also searched without twins, with at most one preemption; whatever
// that search finds, the search with twins finds too, with the same kind, unless it ends at its
// budget (no verdict, so nothing hidden).
TEST(Symmetry, TwinDeclarationsHold) {
  int checked = 0;
  for (const Scenario& s : all_scenarios()) {
    if (s.twins == 0) continue;
    std::vector<std::string> models = {"none"};
    for (const MutantInfo& m : all_mutants())
      if (std::string(m.caught_by).rfind("rwsem_", 0) == 0) models.push_back(m.name);
    for (const std::string& m : models) {
      const RunResult without = explore(s, false, false, m, kMutantBudget, "bound:1");
      if (without.result != "counterexample") continue;
      const RunResult with = explore(s, true, true, m, 10 * kMutantBudget);
      if (with.result == "incomplete") continue;  // no verdict with twins either: nothing hidden
      checked++;
      EXPECT_EQ(with.result, "counterexample") << s.name << " " << m << ": without twins " << without.kind;
      EXPECT_EQ(with.kind, without.kind) << s.name << " " << m;
    }
  }
  EXPECT_GE(checked, 6);
}
