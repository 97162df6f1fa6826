// explore_bench [RUNS] [SCENARIO...]: time each scenario's exploration under its own search
// (and the unbatched baseline where there is one), RUNS times (default 5), and print the median
// seconds, the iteration count and iterations per second; for a full search also the reduced
// search (--reduce) or, for a reduced one, plain full search (within kPlainBudget iterations);
// for a full search also two processes (shards, --jobs 2, for a plain one; work-stealing,
// --jobs 2 --steal, for a reduced one: verify/cli/cmd_run.cpp); for a bounded one also the
// reduced full search (within kReducedBudget). A search stopped by its budget prints
// `incomplete`. Not a test.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <chrono>
#include "verify/search/scenario.hpp"
#include "verify/search/shards.hpp"

enum class Mode { own, plain, reduced, jobs2 };

constexpr uint64_t kPlainBudget = 5000000, kReducedBudget = 500000;

static void bench(const Scenario& s, bool unbatched, Mode mode, int runs) {
  std::vector<double> secs;
  RunResult r;
  for (int i = 0; i < runs; i++) {
    RunOptions o;
    o.unbatched = unbatched;
    SearchSpec::parse(mode == Mode::own || mode == Mode::jobs2 ? s.search : "full", &o.search, nullptr);
    o.reduce = mode == Mode::reduced;
    if (mode == Mode::plain) o.budget = kPlainBudget;
    if (mode == Mode::reduced && o.search.str() != s.search) o.budget = kReducedBudget;
    auto t0 = std::chrono::steady_clock::now();  // wall clock: --jobs runs in child processes
    if (mode == Mode::jobs2 && o.search.reduce) o.steal_jobs = 2;
    r = mode == Mode::jobs2 && !o.search.reduce ? run_jobs(s, o, 2) : run_scenario(s, o, true);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(secs.begin(), secs.end());
  double median = secs[secs.size() / 2];
  const char* how = mode == Mode::own ? "" : mode == Mode::plain ? " plain" : mode == Mode::reduced ? " reduce" : " jobs 2";  // with --steal on a reduced search
  std::printf("%-28s %-9s %-8s%-7s %-10s %12llu %10.3f %12.0f\n", s.name.c_str(), unbatched ? "unbatched" : "batched",
              r.search.c_str(), how, r.result.c_str(), (unsigned long long)r.iterations, median,
              median > 0 ? r.iterations / median : 0.0);
  std::fflush(stdout);
}

static void bench_all_modes(const Scenario& s, bool unbatched, int runs) {
  bench(s, unbatched, Mode::own, runs);
  if (s.search == "full+reduce") bench(s, unbatched, Mode::plain, runs);
  if (s.search != "full+reduce") bench(s, unbatched, Mode::reduced, runs);
  if (s.search == "full" || s.search == "full+reduce") bench(s, unbatched, Mode::jobs2, runs);
}

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  if (runs < 1) {
    std::fprintf(stderr, "explore_bench: RUNS must be a positive number\n");
    return 2;
  }
  std::vector<std::string> only(argv + std::min(argc, 2), argv + argc);
  std::printf("%-28s %-9s %-15s %-10s %12s %10s %12s\n", "scenario", "variant", "search", "result", "iterations",
              "median s", "iter/s");
  for (const Scenario& s : all_scenarios()) {
    if (!only.empty() && std::find(only.begin(), only.end(), s.name) == only.end()) continue;
    bench_all_modes(s, false, runs);
    if (s.baseline) bench_all_modes(s, true, runs);
  }
  return 0;
}
