// The kernel checker's scenarios in contained children (verify/kernel/kernel_sandbox.hpp), up
// to `jobs` at once. A child takes the next scenario when it has handed over the last one's
// outcome, so that one long search (minutes) does not hold back the short ones behind it.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>
#include "verify/kernel/kernel_sandbox.hpp"

struct ContainedTasks {
  size_t count = 0;       // tasks 0 .. count-1, handed out in that order
  int jobs = 1;           // children at once (at most count)
  bool count_lines = false;  // each child hands over its gcov counters when it has no task left
  // In a child, under the filter: task i's result, one line (no newline in it).
  std::function<std::string(size_t)> run;
};

// Runs every task; `on_result(i, line)` gets the results in task order (0, 1, ...), each as soon
// as it and those before it are in, and `on_arrival(n)` the number in so far, in any order. With
// count_lines, `counters` gets one set of gcov counters per child (their sum is the run's).
// Returns "" when every task ran, otherwise what stopped a child (a forbidden system call, a
// crash): then every other child is stopped too, and the results already in are handed over.
std::string run_contained_tasks(const ContainedTasks& t, std::vector<std::vector<GcdaFile>>* counters,
                                const std::function<void(size_t, const std::string&)>& on_result,
                                const std::function<void(size_t)>& on_arrival);
