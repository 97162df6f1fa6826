#include "verify/search/call_chains.hpp"

#include <algorithm>
#include <cstdint>
#include "model/call_chain.hpp"
#include "verify/search/step_footprint.hpp"

namespace exploration {

namespace {

// A change to a task's frames: its frames from then on are pool[begin, begin + depth).
struct Mark {
  size_t history_index;  // the index Relacy gives the next event it records
  int task;
  size_t begin, depth;
};
std::vector<Mark> marks;
std::vector<const char*> pool;
size_t overflow_at = SIZE_MAX;  // the storage ran out at this history index: later chains are not known
bool recorded = false;          // a recording ended and its chains were not assigned yet

// Fixed capacity, reserved before the run: no allocation inside Relacy's iteration.
constexpr size_t kMaxMarks = 1 << 16, kMaxPool = 1 << 19;

void changed(int task, const char* const* frames, int depth) {
  if (marks.size() == kMaxMarks || pool.size() + (size_t)depth > kMaxPool) {
    overflow_at = std::min(overflow_at, entries_of(relacy_history::of(rl::ctx())).size());
    return;
  }
  marks.push_back({entries_of(relacy_history::of(rl::ctx())).size(), task, pool.size(), (size_t)depth});
  pool.insert(pool.end(), frames, frames + depth);
}

}  // namespace

void call_chains_begin() {
  marks.clear();
  pool.clear();
  marks.reserve(kMaxMarks);
  pool.reserve(kMaxPool);
  overflow_at = SIZE_MAX;
  recorded = false;
  call_chain::start(&changed);
}

void call_chains_end() {
  call_chain::stop();
  recorded = true;
}

void assign_call_chains(std::vector<TraceEvent>* events) {
  if (!recorded) return;  // not the run that was recorded
  recorded = false;
  // Marks are in history order; an event of a task takes that task's last mark at or before it.
  std::vector<const Mark*> last(call_chain::kMaxTasks, nullptr);
  size_t next = 0;
  for (TraceEvent& e : *events) {
    while (next < marks.size() && marks[next].history_index <= (size_t)e.step) {
      last[marks[next].task] = &marks[next];
      next++;
    }
    e.chain.clear();
    if (e.thread < 0 || e.thread >= call_chain::kMaxTasks) continue;
    if ((size_t)e.step >= overflow_at) {
      e.chain = "(not recorded: too many frames)";
      continue;
    }
    if (!last[e.thread]) continue;
    const Mark& m = *last[e.thread];
    for (size_t i = 0; i < m.depth; i++) e.chain += (i ? " → " : "") + std::string(pool[m.begin + i]);
  }
}

}  // namespace exploration
