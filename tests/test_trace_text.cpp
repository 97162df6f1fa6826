// What a counterexample trace tells its reader: compare-exchange rows with expected, found and
// new, decoded; messages whole; end-of-run checks and deadlocks in no thread, naming the
// blocked tasks; project sources only; a legend; Relacy's internal rows only on request;
// aligned columns.
#include <gtest/gtest.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <nlohmann/json.hpp>
#include "verify/search/scenario.hpp"
#include "verify/report/trace.hpp"

static RunResult caught(const std::string& scenario, const std::string& mutant) {
  RunOptions o;
  o.mutant = mutant;
  RunResult r = run_scenario(*find_scenario(scenario), o, false);
  EXPECT_EQ(r.result, "counterexample") << scenario << " " << mutant;
  return r;
}

static const TraceEvent& failing(const RunResult& r) { return r.events.back(); }

TEST(TraceText, CompareExchangeShowsExpectedFoundAndNewDecoded) {
  RunResult r = caught("rwsem_readers_writer", "try_write_lock_clears_waiters");
  int cas = 0;
  bool clears_waiters = false;
  for (const TraceEvent& e : r.events) {
    if (e.operation.rfind("compare-exchange", 0) != 0) continue;
    cas++;
    EXPECT_TRUE(std::regex_match(e.value, std::regex("expected .+; found .+; (new .+|not replaced)"))) << e.value;
    // The bug: the CAS that takes the lock drops WAITERS although a reader still waits.
    clears_waiters |= e.value == "expected WAITERS; found WAITERS; new WRITER";
  }
  EXPECT_GT(cas, 0);
  EXPECT_TRUE(clears_waiters) << trace_text(r);
  EXPECT_EQ(trace_text(r).find("[ABA]"), std::string::npos);
}

TEST(TraceText, MessagesAreWholeInTextAndJson) {
  RunResult r = caught("teardown_vs_rmap_walk", "batch_final_forgotten");
  EXPECT_NE(failing(r).value.find("removed 0 times, expected 1"), std::string::npos) << failing(r).value;
  nlohmann::json j = nlohmann::json::parse(trace_json(r));
  EXPECT_NE(j.at("events").back().at("value").get<std::string>().find(", expected 1"), std::string::npos);
  EXPECT_NE(trace_text(r).find(", expected 1"), std::string::npos);
}

TEST(TraceText, EndOfRunChecksBelongToNoThread) {
  RunResult r = caught("teardown_vs_rmap_walk", "batch_final_forgotten");
  EXPECT_EQ(failing(r).thread, kEndOfRun);
  EXPECT_TRUE(std::regex_search(trace_text(r), std::regex(R"(\n>> +\d+ +end +check_removed)"))) << trace_text(r);
}

// The hand model's queue, as a row after each change: who waits, reader or writer, handoff_set.
TEST(TraceText, TheWaitListIsShownAfterEachChange) {
  RunResult r = caught("rwsem_reader_writer", "up_read_no_wake");
  const std::string t = trace_text(r);
  EXPECT_TRUE(std::regex_search(t, std::regex(R"(wait_list of \S+: \[T\d writer\])"))) << t;
}

TEST(TraceText, DeadlockNamesTheBlockedTaskAndProjectSourcesOnly) {
  RunResult r = caught("rwsem_reader_writer", "up_read_no_wake");
  EXPECT_EQ(failing(r).thread, kEndOfRun);
  // Where it sleeps in kernel terms, and that nobody is left to wake it.
  EXPECT_NE(failing(r).operation.find("blocked forever: T0 in schedule (from rwsem_down_write_slowpath) (lost wake-up)"),
            std::string::npos)
      << failing(r).operation;
  // The result's one line says the same.
  EXPECT_NE(r.message.find("T0 blocked in schedule (from rwsem_down_write_slowpath) (lost wake-up)"), std::string::npos)
      << r.message;
  // The sleep in schedule(): the line of model/sched.hpp that waits on the task's run state.
  std::ifstream sched(std::string(VMAVERIFY_SOURCE) + "/model/sched.hpp");
  int line = 0, wait_line = 0;
  for (std::string l; std::getline(sched, l) && !wait_line;) line++, wait_line = l.find("runnable.wait(") != std::string::npos ? line : 0;
  EXPECT_EQ(failing(r).source, "model/sched.hpp:" + std::to_string(wait_line));
  for (const TraceEvent& e : r.events) EXPECT_EQ(e.source.find("relacy/"), std::string::npos) << e.step;
}

TEST(TraceText, DataRaceNamesModelFunctions) {
  RunResult r = caught("rwsem_two_writers", "up_write_relaxed");
  EXPECT_EQ(r.message.find(" in thread "), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("after "), std::string::npos) << r.message;
}

TEST(TraceText, LegendAndRelacyRowsOnlyWhenRaw) {
  RunResult r = caught("rwsem_readers_writer", "try_write_lock_clears_waiters");
  const std::string t = trace_text(r), raw = trace_text(r, true);
  EXPECT_NE(t.find("legend: " + find_scenario("rwsem_readers_writer")->description), std::string::npos) << t;
  EXPECT_NE(t.find("  T0 ran: rwsem_write_trylock"), std::string::npos) << t;
  EXPECT_NE(t.find("Set-up steps (constructors) are hidden"), std::string::npos);
  EXPECT_EQ(t.find("event: "), std::string::npos) << t;
  EXPECT_NE(raw.find("event: reset"), std::string::npos) << raw;
}

TEST(TraceText, ColumnsStayAlignedWithLongObjectNames) {
  RunResult r = caught("teardown_vs_rmap_walk", "final_after_free_pgd_range");
  std::istringstream lines(trace_text(r));
  std::string line;
  while (std::getline(lines, line) && line.find(" step ") == std::string::npos) {
  }
  const size_t object = line.find("object"), source = line.find("source"), state = line.find("state");
  ASSERT_NE(source, std::string::npos) << line;
  ASSERT_NE(state, std::string::npos) << line;
  int rows = 0;
  for (; std::getline(lines, line); rows++) {
    ASSERT_GT(line.size(), object) << line;
    EXPECT_EQ(line[object - 1], ' ') << line;
    if (line.rfind(">>", 0) == 0) {  // the failing row's message may be longer than its column
      EXPECT_TRUE(std::regex_search(line, std::regex(R"( [a-z]+/[\w/.]+:\d+ +batch: )"))) << line;
    } else if (line.size() > source) {
      EXPECT_TRUE(std::regex_match(line.substr(source, state - source), std::regex(R"([a-z]+/[\w/.]+:\d+ *)"))) << line;
      if (line.size() > state) {
        EXPECT_EQ(line[state - 1], ' ') << line;
      }
    }
  }
  EXPECT_GT(rows, 5);
}

// The batch the checks read, at each batch step: a forgotten final shows as a final that left
// the batch full (no process, so no removal), the others as their state after the step.
TEST(TraceText, BatchStepsAreRows) {
  RunResult r = caught("teardown_vs_rmap_walk", "batch_final_forgotten");
  std::vector<const TraceEvent*> batch;
  for (const TraceEvent& e : r.events)
    if (e.object == "the batch") batch.push_back(&e);
  ASSERT_GE(batch.size(), 3u) << trace_text(r);
  EXPECT_EQ(batch.front()->operation, "batch init");
  EXPECT_EQ(batch.front()->function, "unlink_file_vma_batch_init");
  EXPECT_EQ(batch[1]->value, "count=1 vmas=[vma 0] file libc.so.6");
  EXPECT_EQ(batch.back()->operation, "batch final");
  EXPECT_EQ(batch.back()->value, "count=5 vmas=[vma 0 vma 1 vma 2 vma 3 vma 4] file libc.so.6");
}

// The state after each row, last on the row: the batch, the locks held, the tables the run wrote.
// Here the walker holds i_mmap_rwsem, the batch is still full, and every table is freed.
TEST(TraceText, StateColumnShowsTheStateAfterEachRow) {
  RunResult r = caught("teardown_vs_rmap_walk", "final_after_free_pgd_range");
  const std::string t = trace_text(r);
  const std::string last = t.substr(t.find("\n>> ") + 1);
  EXPECT_NE(last.find("batch: count=5 vmas=[vma 0 vma 1 vma 2 vma 3 vma 4] file libc.so.6"), std::string::npos) << last;
  EXPECT_NE(last.find("i_mmap_rwsem of A: held shared by T1"), std::string::npos) << last;
  EXPECT_NE(last.find("tables of exiting process: PUD table 0x7f0000000000 FREED, PMD table 0x7f0000000000 FREED"),
            std::string::npos)
      << last;
  // Before the teardown freed anything, no table is in the state.
  const std::string first_batch_row = t.substr(t.find("batch init"));
  EXPECT_EQ(first_batch_row.substr(0, first_batch_row.find('\n')).find("tables of"), std::string::npos);
}

// The hand model's queue is in the state of every row after it changed, the last one included.
TEST(TraceText, TheWaitListIsInTheStateColumn) {
  RunResult r = caught("rwsem_reader_writer", "up_read_no_wake");
  const std::string t = trace_text(r);
  const std::string last = t.substr(t.find("\n>> ") + 1);
  EXPECT_TRUE(std::regex_search(last, std::regex(R"(wait_list of \S+: \[T\d writer\])"))) << last;
}

// Each row carries its task's kernel call chain (model/call_chain.hpp), outermost first: the
// teardown's frees run in exit_mmap → free_pgtables → free_pgd_range → ..., the walker's reads
// in rmap_walk_file. --chains shows them in the function column; the JSON always has them.
TEST(TraceText, RowsCarryTheirKernelCallChain) {
  RunResult r = caught("teardown_vs_rmap_walk", "final_after_free_pgd_range");
  int frees = 0, walks = 0;
  for (const TraceEvent& e : r.events) {
    if (e.function == "free_table") {
      frees++;
      EXPECT_EQ(e.chain.rfind("exit_mmap → free_pgtables → free_pgd_range → free_p4d_range → free_pud_range", 0), 0u)
          << e.chain;
    }
    if (e.thread == 1 && e.function == "descend_to") {
      walks++;
      EXPECT_EQ(e.chain.rfind("rmap_walk_file", 0), 0u) << e.chain;
    }
  }
  EXPECT_EQ(frees, 4);
  EXPECT_GT(walks, 0);
  const std::string plain = trace_text(r), chains = trace_text(r, false, true);
  EXPECT_EQ(plain.find("free_pgtables → "), std::string::npos);
  EXPECT_NE(chains.find("exit_mmap → free_pgtables → free_pgd_range → "), std::string::npos) << chains;
  nlohmann::json j = nlohmann::json::parse(trace_json(r));
  EXPECT_FALSE(j.at("events").back().at("chain").get<std::string>().empty());
}
