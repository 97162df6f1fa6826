#include "verify/report/swimlane.hpp"

#include <algorithm>
#include <map>
#include <set>
#include "verify/report/trace.hpp"

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_relacy_internal(const TraceEvent& e) { return starts_with(e.operation, "event: "); }

// A task that stops here because it cannot go on (it sleeps), not because it was preempted.
bool blocks(const TraceEvent& e) {
  return e.operation == "mutex: blocking" || starts_with(e.operation, "blocking current thread") ||
         e.operation == "thread finished";
}

// Who holds each lock, as Relacy's reader/writer mutex events (the abstract rw_semaphore)
// and the count word of the faithful one (model/rwsem_count.hpp, decoded) say.
struct LockOwners {
  std::map<std::string, int> writer;               // lock -> thread holding it for write
  std::map<std::string, std::multiset<int>> readers;  // lock -> threads holding it for read

  std::string holders(const std::string& lock) const {
    std::string s;
    auto w = writer.find(lock);
    // Exclusive and shared: a write and a read hold of an rw_semaphore, or a spinlock's hold.
    if (w != writer.end()) s = "held exclusively by T" + std::to_string(w->second);
    auto r = readers.find(lock);
    if (r != readers.end() && !r->second.empty()) {
      s += s.empty() ? "held shared by" : "; shared by";
      for (int t : std::set<int>(r->second.begin(), r->second.end())) s += " T" + std::to_string(t);
    }
    return s.empty() ? "free" : s;
  }

  // The change this event makes, or "".
  std::string apply(const TraceEvent& e) {
    const std::string& op = e.operation;
    if (!starts_with(op, "mutex: ")) return "";
    const std::string& lock = e.object;
    if (op == "mutex: exclusive lock" || op == "mutex: recursive exclusive lock") writer[lock] = e.thread;
    else if (op == "mutex: exclusive unlock") writer.erase(lock);
    else if (op == "mutex: shared lock" || op == "mutex: recursive shared lock") readers[lock].insert(e.thread);
    else if (op == "mutex: shared unlock") {
      auto r = readers.find(lock);
      if (r != readers.end() && r->second.count(e.thread)) r->second.erase(r->second.find(e.thread));
    } else {
      return "";  // blocking, a failed try: no owner changes
    }
    return lock + ": " + holders(lock);
  }
};

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
  LockOwners owners;
  std::string batch;
  for (const TraceEvent& e : events) {
    if (!e.failing && is_relacy_internal(e)) continue;
    SwimlaneRow row;
    row.event = &e;
    row.lane = e.thread == kEndOfRun ? -1 : lane_of[e.thread];
    if (e.object == "the batch" && e.value != batch) {
      batch = e.value;
      row.changes.push_back("batch: " + e.value);
    }
    if (starts_with(e.object, "count of ") && e.value.find(" -> ") != std::string::npos) {
      std::string now = e.value.substr(e.value.find(" -> ") + 4);
      if (now != e.value.substr(0, e.value.find(" -> "))) row.changes.push_back(e.object + ": " + now);
    }
    if (starts_with(e.object, "count of ") && e.operation == "compare-exchange") {
      size_t at = e.value.find("; new ");
      if (at != std::string::npos) row.changes.push_back(e.object + ": " + e.value.substr(at + 6));
    }
    std::string owner = owners.apply(e);
    if (!owner.empty()) row.changes.push_back(owner);
    s.rows.push_back(row);
  }
  s.preemptions = count_preemptions(events);
  return s;
}
