// explore_bench [RUNS] [SCENARIO...]: time each scenario's exploration under its own search
// (and the unbatched baseline where there is one), RUNS times (default 5), and print the median
// seconds, the iteration count and iterations per second. Not a test.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "verify/scenario.hpp"

static void bench(const Scenario& s, bool unbatched, int runs) {
  std::vector<double> secs;
  RunResult r;
  for (int i = 0; i < runs; i++) {
    RunOptions o;
    o.unbatched = unbatched;
    r = run_scenario(s, o, false);
    secs.push_back(r.seconds);
  }
  std::sort(secs.begin(), secs.end());
  double median = secs[secs.size() / 2];
  std::printf("%-28s %-9s %-8s %-10s %12llu %10.3f %12.0f\n", s.name.c_str(), unbatched ? "unbatched" : "batched",
              r.search.c_str(), r.result.c_str(), (unsigned long long)r.iterations, median,
              median > 0 ? r.iterations / median : 0.0);
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  if (runs < 1) {
    std::fprintf(stderr, "explore_bench: RUNS must be a positive number\n");
    return 2;
  }
  std::vector<std::string> only(argv + std::min(argc, 2), argv + argc);
  std::printf("%-28s %-9s %-8s %-10s %12s %10s %12s\n", "scenario", "variant", "search", "result", "iterations",
              "median s", "iter/s");
  for (const Scenario& s : all_scenarios()) {
    if (!only.empty() && std::find(only.begin(), only.end(), s.name) == only.end()) continue;
    bench(s, false, runs);
    if (s.baseline) bench(s, true, runs);
  }
  return 0;
}
