// A counterexample as swimlanes: one lane per task, time downward, and beside each step the
// state it changed (verify/report/trace_state.hpp: the batch, the lock holders, the count words,
// the wait lists, the page tables). What the HTML report draws; no HTML here.
#pragma once
#include <string>
#include <vector>
#include "verify/search/result.hpp"

struct Lane {
  int thread = 0;
  std::string role;  // what the task is, from the kernel functions it ran
};

struct SwimlaneRow {
  const TraceEvent* event = nullptr;
  int lane = -1;                     // index into Swimlane::lanes; -1: an end-of-run row, in no lane
  std::vector<std::string> changes;  // TraceState::apply: "batch: count=1 ...", "i_mmap_rwsem of A: held exclusively by T0"
};

struct Swimlane {
  std::vector<Lane> lanes;  // one per thread that has an event, by thread number
  std::vector<SwimlaneRow> rows;
  int preemptions = 0;      // switches away from a task that could still run (see count_preemptions)
};

// Rows for every event but Relacy's internal scheduler rows (rl::event's "event: ..."), as the
// text trace shows them. The events must outlive the result.
Swimlane build_swimlane(const std::vector<TraceEvent>& events);

// What a task is: the role the model logged for it (a "task" row: "exit (exit_mmap)", "rmap
// walker (rmap_walk_file)", ...), or for the rw_semaphore scenarios' bare lockers "writer
// (down_write)" / "reader (down_read)" by the functions it ran.
std::string task_role(const std::vector<TraceEvent>& events, int thread);

// Preemptions in a trace: a switch from task A to task B where A's last step neither blocked
// nor finished it, i.e. A could still run (how context-bounded search counts them).
int count_preemptions(const std::vector<TraceEvent>& events);
