// The kernel checker's children (verify/kernel/kernel_pool.hpp): results in the tasks' order
// whatever order they end in, every task run once, and a child that is stopped stops the run.
#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <string>
#include <vector>
#include "verify/kernel/kernel_pool.hpp"

namespace {

void sleep_ms(long ms) {
  timespec t{ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&t, nullptr);
}

struct Collected {
  std::vector<size_t> order;
  std::vector<std::string> lines;
  size_t arrivals = 0;
};

std::string run(const ContainedTasks& t, Collected* c) {
  return run_contained_tasks(
      t, nullptr,
      [&](size_t i, const std::string& line) {
        c->order.push_back(i);
        c->lines.push_back(line);
      },
      [&](size_t n) { c->arrivals = n; });
}

}  // namespace

// Task 0 takes longest: with three children the others end first, and are still handed over
// after it, in order. Each child ran in a process of its own (its pid in the line).
TEST(KernelPool, ResultsComeInTheTasksOrder) {
  ContainedTasks t;
  t.count = 7;
  t.jobs = 3;
  t.run = [](size_t i) {
    sleep_ms(i == 0 ? 400 : 20);
    return "task " + std::to_string(i) + " pid " + std::to_string(getpid());
  };
  Collected c;
  EXPECT_EQ(run(t, &c), "");
  ASSERT_EQ(c.order, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
  for (size_t i = 0; i < 7; i++) EXPECT_EQ(c.lines[i].rfind("task " + std::to_string(i) + " ", 0), 0u) << c.lines[i];
  EXPECT_EQ(c.arrivals, 7u);
  EXPECT_EQ(c.lines[0].find("pid " + std::to_string(getpid())), std::string::npos) << "run in the parent";
}

// More children asked for than tasks; one child; no task.
TEST(KernelPool, AnyNumberOfChildrenRunsEachTaskOnce) {
  for (int jobs : {1, 2, 5}) {
    ContainedTasks t;
    t.count = 3;
    t.jobs = jobs;
    t.run = [](size_t i) { return std::to_string(i * 10); };
    Collected c;
    EXPECT_EQ(run(t, &c), "") << jobs;
    EXPECT_EQ(c.lines, (std::vector<std::string>{"0", "10", "20"})) << jobs;
  }
  ContainedTasks none;
  none.run = [](size_t) { return std::string("never"); };
  Collected c;
  EXPECT_EQ(run(none, &c), "");
  EXPECT_TRUE(c.lines.empty());
}

// A child that crashes stops the run: what stopped it is said, the others are stopped too, and
// the results already in are handed over (the crashed task's is not).
TEST(KernelPool, ACrashStopsEveryChild) {
  ContainedTasks t;
  t.count = 6;
  t.jobs = 2;
  t.run = [](size_t i) {
    if (i == 2) raise(SIGSEGV);
    if (i > 2) sleep_ms(2000);  // still running when the crash stops them
    return std::to_string(i);
  };
  Collected c;
  const std::string stopped = run(t, &c);
  EXPECT_NE(stopped.find("crashed: signal 11"), std::string::npos) << stopped;
  for (size_t i : c.order) EXPECT_NE(i, 2u);
  EXPECT_LT(c.order.size(), 6u);
}

// A child whose code makes a forbidden system call is named by the call (a sanitized build
// runs its children unfiltered: tests/sanitizer_excluded.txt).
TEST(KernelPool, AForbiddenCallIsNamed) {
  ContainedTasks t;
  t.count = 2;
  t.jobs = 2;
  t.run = [](size_t i) {
    if (i == 1) (void)getppid();
    return std::string("ran");
  };
  Collected c;
  const std::string stopped = run(t, &c);
  EXPECT_NE(stopped.find("made the system call getppid"), std::string::npos) << stopped;
}
