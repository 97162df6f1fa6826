#include "verify/report/swimlane.hpp"

#include <algorithm>
#include <map>
#include <set>
#include "verify/report/trace.hpp"
#include "verify/report/trace_state.hpp"

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_relacy_internal(const TraceEvent& e) { return starts_with(e.operation, "event: "); }

// A task that stops here because it cannot go on (it sleeps), not because it was preempted.
bool blocks(const TraceEvent& e) {
  return e.operation == "mutex: blocking" || starts_with(e.operation, "blocking current thread") ||
         e.operation == "thread finished";
}

}  // namespace

std::string task_role(const std::vector<TraceEvent>& events, int thread) {
  std::vector<std::string> ran;
  for (const TraceEvent& e : events) {
    if (e.thread != thread) continue;
    if (e.operation == "task") return e.value;  // the model named it (model/mm.hpp, LOG_TASK)
    if (!e.function.empty() && std::find(ran.begin(), ran.end(), e.function) == ran.end()) ran.push_back(e.function);
  }
  // The rw_semaphore scenarios' tasks only lock and unlock: named by the side they take
  // (model/rwsem_count.hpp and rwsem_abstract.hpp's functions).
  auto any = [&](std::initializer_list<const char*> names) {
    for (const std::string& f : ran)
      for (const char* n : names)
        if (f == n) return true;
    return false;
  };
  if (any({"__down_write", "rwsem_down_write_slowpath", "__up_write", "rwsem_try_write_lock",
           "rwsem_try_write_lock_unqueued"}))
    return "writer (down_write)";
  if (any({"__down_read", "__down_read_trylock", "rwsem_read_trylock", "rwsem_down_read_slowpath", "__up_read"}))
    return "reader (down_read)";
  std::string s = "ran";
  for (size_t i = 0; i < ran.size() && i < 3; i++) s += (i ? ", " : " ") + ran[i];
  return s;
}

int count_preemptions(const std::vector<TraceEvent>& events) {
  std::vector<const TraceEvent*> ev;
  for (const TraceEvent& e : events)
    if (e.thread != kEndOfRun) ev.push_back(&e);
  int n = 0;
  for (size_t i = 1; i < ev.size(); i++) {
    const TraceEvent& prev = *ev[i - 1];
    if (ev[i]->thread != prev.thread && !blocks(prev)) n++;
  }
  return n;
}

Swimlane build_swimlane(const std::vector<TraceEvent>& events) {
  Swimlane s;
  std::set<int> threads;
  for (const TraceEvent& e : events)
    if (e.thread != kEndOfRun) threads.insert(e.thread);
  std::map<int, int> lane_of;
  for (int t : threads) {
    lane_of[t] = (int)s.lanes.size();
    s.lanes.push_back({t, task_role(events, t)});
  }
  TraceState state;
  for (const TraceEvent& e : events) {
    if (!e.failing && is_relacy_internal(e)) continue;
    SwimlaneRow row;
    row.event = &e;
    row.lane = e.thread == kEndOfRun ? -1 : lane_of[e.thread];
    row.changes = state.apply(e);
    s.rows.push_back(row);
  }
  s.preemptions = count_preemptions(events);
  return s;
}
