// The swimlane model under the HTML report: lanes, roles, state changes, preemptions.
#include <gtest/gtest.h>
#include "verify/report/swimlane.hpp"
#include "verify/report/trace.hpp"
#include "verify/report/trace_state.hpp"

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

namespace {

// The kernel code's wait list, followed from sem->wait_list through the links its rows wrote
// (model/kshim/rwsem.h names them); reader or writer by the slowpath the task was in.
TEST(TraceState, FollowsTheKernelWaitListThroughItsLinks) {
  std::vector<TraceEvent> events = {
      ev(1, 1, "rwsem_down_write_slowpath", "wait_lock of sem", "mutex: exclusive lock"),
      ev(2, 1, "rwsem_add_waiter", "sem->wait_list.prev", "store", "waiter.list of task 1"),
      ev(3, 1, "rwsem_add_waiter", "waiter.list.next of task 1", "store", "sem->wait_list"),
      ev(4, 1, "rwsem_add_waiter", "waiter.list.prev of task 1", "store", "sem->wait_list"),
      ev(5, 1, "rwsem_add_waiter", "sem->wait_list.next", "store", "waiter.list of task 1"),
      ev(6, 2, "rwsem_down_read_slowpath", "waiter.list.next of task 2", "store", "sem->wait_list"),
      ev(7, 2, "rwsem_add_waiter", "waiter.list.next of task 1", "store", "waiter.list of task 2"),
      ev(8, 1, "operator=", "waiter.handoff_set of task 1", "atomic store", "1"),
      ev(9, 0, "rwsem_del_waiter", "sem->wait_list.next", "store", "waiter.list of task 2"),
  };
  TraceState s;
  std::vector<std::vector<std::string>> changes;
  for (const TraceEvent& e : events) changes.push_back(s.apply(e));
  EXPECT_TRUE(changes[1].empty());  // no list to follow before the head's next is written
  EXPECT_EQ(changes[4], std::vector<std::string>{"sem->wait_list: [T1 writer]"});
  EXPECT_EQ(changes[6], std::vector<std::string>{"sem->wait_list: [T1 writer, T2 reader]"});
  EXPECT_EQ(changes[7], std::vector<std::string>{"sem->wait_list: [T1 writer (handoff_set), T2 reader]"});
  EXPECT_EQ(changes[8], std::vector<std::string>{"sem->wait_list: [T2 reader]"});
  EXPECT_EQ(s.summary(), "wait_lock of sem: held exclusively by T1; sem->wait_list: [T2 reader]");
}

// Every table whose entry a row wrote, by process, top level first; locks only while held.
TEST(TraceState, PageTablesByProcessAndLocksWhileHeld) {
  TraceState s;
  s.apply(ev(1, 0, "free_table", "pmd entry -> PTE table 0x200000 (in PMD table 0) of P", "exchange",
             "present -> FREED"));
  // %#lx prints the table at address 0 as "0".
  s.apply(ev(2, 0, "free_table", "pgd entry -> PUD table 0 of P", "exchange", "present -> FREED"));
  s.apply(ev(3, 1, "retract", "pmd entry -> PTE table 0 (in PMD table 0) of Q", "atomic store", "RETRACTED"));
  s.apply(ev(4, 1, "__down_read", "i_mmap_rwsem of A", "mutex: shared lock"));
  // A load is no write: it says nothing of the table's state now.
  const std::vector<std::string> read = s.apply(ev(5, 1, "descend", "pgd entry -> PUD table 0 of P", "atomic load", "present"));
  EXPECT_TRUE(read.empty());
  EXPECT_EQ(s.summary(),
            "i_mmap_rwsem of A: held shared by T1; tables of P: PUD table 0 FREED, PTE table 0x200000 FREED; "
            "tables of Q: PTE table 0 RETRACTED");
  s.apply(ev(6, 1, "__up_read", "i_mmap_rwsem of A", "mutex: shared unlock"));
  EXPECT_EQ(s.summary().find("i_mmap_rwsem"), std::string::npos) << s.summary();
}

}  // namespace

namespace {

// A trace file given to `vmaverify report` is untrusted: an object name far longer than any the
// model writes (std::regex would recurse once per character) is left out of the state, and an
// edited wait list with endless links or a huge task number ends.
TEST(TraceState, EditedTracesStayHarmless) {
  TraceState s;
  const std::string huge = std::string(1 << 20, 'a') + "->wait_list.next";
  EXPECT_TRUE(s.apply(ev(1, 0, "f", huge, "store", "waiter.list of task 1")).empty());
  s.apply(ev(2, 0, "f", "sem->wait_list.next", "store", "waiter.list of task 1"));
  std::vector<std::string> loop = s.apply(ev(3, 0, "f", "waiter.list.next of task 1", "store", "waiter.list of task 1"));
  ASSERT_EQ(loop.size(), 1u);
  EXPECT_EQ(loop[0], "sem->wait_list: [T1, T1, T1, T1, T1, T1, T1, T1]");  // at most 8 followed
  const std::vector<std::string> big = s.apply(ev(4, 0, "f", "sem->wait_list.next", "store", "waiter.list of task 99999999999"));
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(big[0], "sem->wait_list: [? (waiter.list of task 99999999999)]");
}

}  // namespace
