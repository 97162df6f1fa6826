#include "model/lockdep.hpp"

#include <cstring>

#include "model/check.hpp"

namespace {
constexpr int MAX_CLASSES = 16, MAX_HELD = 8, MAX_TASKS = 8;

struct lock_class {
  char name[48];
};

// The iteration's graph: classes seen, orders taken (and which task first took each), locks held.
struct lockdep_state {
  lock_class classes[MAX_CLASSES];
  int nclasses = 0;
  bool after[MAX_CLASSES][MAX_CLASSES] = {};  // after[a][b]: b was taken while a was held
  int witness[MAX_CLASSES][MAX_CLASSES] = {};
  int held[MAX_TASKS][MAX_HELD];
  int nheld[MAX_TASKS] = {};
};
lockdep_state g_lockdep;

// The class of a lock: its name up to " of ".
int class_of(const char* lock_name) {
  const char* of = std::strstr(lock_name, " of ");
  size_t n = of ? (size_t)(of - lock_name) : std::strlen(lock_name);
  if (n >= sizeof(lock_class::name)) n = sizeof(lock_class::name) - 1;
  for (int i = 0; i < g_lockdep.nclasses; i++)
    if (std::strlen(g_lockdep.classes[i].name) == n && std::strncmp(g_lockdep.classes[i].name, lock_name, n) == 0)
      return i;
  if (g_lockdep.nclasses == MAX_CLASSES) {
    std::fprintf(stderr, "model: more than %d lock classes\n", MAX_CLASSES);
    std::abort();
  }
  lock_class& c = g_lockdep.classes[g_lockdep.nclasses];
  std::memcpy(c.name, lock_name, n);
  c.name[n] = 0;
  return g_lockdep.nclasses++;
}

// Whether `to` is reachable from `from` along recorded orders (check_noncircular's search).
bool reaches(int from, int to, unsigned visited = 0) {
  if (from == to) return true;
  visited |= 1u << from;
  for (int next = 0; next < g_lockdep.nclasses; next++)
    if (g_lockdep.after[from][next] && !(visited >> next & 1) && reaches(next, to, visited)) return true;
  return false;
}
}  // namespace

void lockdep_reset() { g_lockdep = lockdep_state{}; }

void lockdep_acquire(const char* lock_name, bool trylock) {
  int task = (int)rl::thread_index(), c = class_of(lock_name);
  if (!trylock) {
    for (int i = 0; i < g_lockdep.nheld[task]; i++) {
      int h = g_lockdep.held[task][i];
      if (h == c || g_lockdep.after[h][c]) continue;
      if (reaches(c, h)) {
        char by[64] = "through other locks";
        if (g_lockdep.after[c][h]) std::snprintf(by, sizeof by, "by task %d", g_lockdep.witness[c][h]);
        vm_fail("deadlock", RL_INFO,
                "possible circular locking dependency (lockdep): task %d takes %s while holding %s, which was "
                "taken after %s %s",
                task, g_lockdep.classes[c].name, g_lockdep.classes[h].name, g_lockdep.classes[c].name, by);
      }
      g_lockdep.after[h][c] = true;
      g_lockdep.witness[h][c] = task;
    }
  }
  if (g_lockdep.nheld[task] == MAX_HELD) {
    std::fprintf(stderr, "model: task %d holds more than %d locks\n", task, MAX_HELD);
    std::abort();
  }
  g_lockdep.held[task][g_lockdep.nheld[task]++] = c;
}

void lockdep_release(const char* lock_name) {
  int task = (int)rl::thread_index(), c = class_of(lock_name);
  int& n = g_lockdep.nheld[task];
  for (int i = n - 1; i >= 0; i--)
    if (g_lockdep.held[task][i] == c) {
      for (int j = i; j + 1 < n; j++) g_lockdep.held[task][j] = g_lockdep.held[task][j + 1];
      n--;
      return;
    }
}
