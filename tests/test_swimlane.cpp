// The swimlane model under the HTML report: lanes, roles, state changes, preemptions.
#include <gtest/gtest.h>
#include "verify/report/swimlane.hpp"
#include "verify/report/trace.hpp"

namespace {

TraceEvent ev(int step, int thread, const std::string& function, const std::string& object, const std::string& op,
              const std::string& value = "") {
  TraceEvent e;
  e.step = step;
  e.thread = thread;
  e.function = function;
  e.object = object;
  e.operation = op;
  e.value = value;
  return e;
}

TEST(Swimlane, LanesRolesAndStateChanges) {
  std::vector<TraceEvent> events = {
      ev(1, 0, "exit_mmap", "", "task", "exit (exit_mmap)"),
      ev(2, 0, "unlink_file_vma_batch_add", "the batch", "batch add", "count=1 vmas=[vma 0] file A"),
      ev(3, 0, "__down_write", "i_mmap_rwsem of A", "mutex: exclusive lock"),
      ev(4, 1, "__down_read", "sem", "mutex: blocking"),
      ev(5, 0, "__up_write", "i_mmap_rwsem of A", "mutex: exclusive unlock"),
      ev(6, 1, "__down_read", "i_mmap_rwsem of A", "mutex: shared lock"),
      ev(7, 2, "__down_read", "i_mmap_rwsem of A", "mutex: shared lock"),
      ev(8, 1, "rwsem_down_read_slowpath", "count of sem", "fetch_add", "WRITER -> WRITER|WAITERS"),
      ev(9, kEndOfRun, "", "", "user assert failed", "x"),
  };
  events.back().failing = true;
  Swimlane s = build_swimlane(events);
  ASSERT_EQ(s.lanes.size(), 3u);
  EXPECT_EQ(s.lanes[0].role, "exit (exit_mmap)");
  EXPECT_EQ(s.lanes[1].role, "reader (down_read)");  // no task row: named by what it ran
  ASSERT_EQ(s.rows.size(), events.size());
  EXPECT_EQ(s.rows[1].changes, std::vector<std::string>{"batch: count=1 vmas=[vma 0] file A"});
  EXPECT_EQ(s.rows[2].changes, std::vector<std::string>{"i_mmap_rwsem of A: held exclusively by T0"});
  EXPECT_TRUE(s.rows[3].changes.empty());
  EXPECT_EQ(s.rows[4].changes, std::vector<std::string>{"i_mmap_rwsem of A: free"});
  EXPECT_EQ(s.rows[6].changes, std::vector<std::string>{"i_mmap_rwsem of A: held shared by T1 T2"});
  EXPECT_EQ(s.rows[7].changes, std::vector<std::string>{"count of sem: WRITER|WAITERS"});
  EXPECT_EQ(s.rows[8].lane, -1);
  EXPECT_EQ(s.rows[6].lane, 2);
}

// A switch after a blocking step or a finished thread is no preemption; any other is one.
TEST(Swimlane, Preemptions) {
  std::vector<TraceEvent> events = {
      ev(1, 0, "f", "x", "store"), ev(2, 1, "g", "x", "load"),               // preempts T0
      ev(3, 1, "g", "m", "mutex: blocking"), ev(4, 0, "f", "x", "store"),    // T1 blocks: none
      ev(5, 0, "", "", "thread finished"), ev(6, 1, "g", "x", "load"),       // T0 finished: none
      ev(7, 1, "g", "y", "store"), ev(8, kEndOfRun, "", "", "deadlock"),
  };
  EXPECT_EQ(count_preemptions(events), 1);
}

}  // namespace
