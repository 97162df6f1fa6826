// vmaverify all as CI sees it: a crashing check is that check's error and the others are still
// reported; JUnit names are unique and failures say where and which trace; output paths and
// the spec directory are checked before anything runs; a false spec refutes no mutant.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>
#include "tests/run_binary.hpp"
#include "verify/checks/all.hpp"
#include "verify/report/junit.hpp"

static Outcome outcome(const std::string& group, const std::string& scenario, const std::string& mutant,
                       const std::string& variant, const std::string& result) {
  Outcome o;
  o.group = group;
  o.r.scenario = scenario;
  o.r.mutant = mutant;
  o.r.variant = variant;
  o.r.result = result;
  o.as_expected = result == "verified" || result == "proved" || result == "refuted";
  return o;
}

TEST(AllIsolation, ACrashIsThatChecksErrorAfterWhatItReported) {
  Check crashing;
  crashing.on_crash = outcome("scenarios", "crasher", "none", "batched", "");
  crashing.run = [](const OutcomeSink& sink) {
    sink(outcome("scenarios", "first", "none", "batched", "verified"));
    std::raise(SIGSEGV);
  };
  std::vector<Outcome> got;
  run_check_isolated(crashing, [&](const Outcome& o) { got.push_back(o); });
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].r.scenario, "first");
  EXPECT_TRUE(got[0].as_expected);
  EXPECT_EQ(got[1].r.scenario, "crasher");
  EXPECT_EQ(got[1].r.result, "error");
  EXPECT_FALSE(got[1].as_expected);
  EXPECT_NE(got[1].r.message.find("signal 11"), std::string::npos) << got[1].r.message;

  Check exiting = crashing;
  exiting.run = [](const OutcomeSink&) { std::exit(3); };
  got.clear();
  run_check_isolated(exiting, [&](const Outcome& o) { got.push_back(o); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].r.message.find("exited with status 3 before reporting"), std::string::npos) << got[0].r.message;
}

TEST(AllIsolation, OutcomeCrossesTheProcessBoundaryWhole) {
  Outcome o = outcome("mutants", "s", "m", "unbatched", "counterexample");
  o.r.kind = "data race";
  o.r.message = "a, b, c";
  o.r.state = "1 2 3";
  o.r.stats["write_locks_batched"] = 2;
  o.r.events.push_back({36, 1, "check_deref", "PUD table", "load", "FREED", "relaxed", "model/page_tables.cpp:61", true, ""});
  o.r.failing_step = 36;
  o.expected = "counterexample (use-after-free)";
  Outcome back;
  ASSERT_TRUE(outcome_from_wire(outcome_wire(o), &back));
  EXPECT_EQ(outcome_wire(back), outcome_wire(o));
}

TEST(AllJunit, NamesAreUniqueAndFailuresSayWhereAndWhichTrace) {
  std::vector<Outcome> v = {outcome("scenarios", "s", "none", "batched", "verified"),
                            outcome("baselines", "s", "none", "unbatched", "verified"),
                            outcome("mutants", "s", "m1", "batched", "counterexample"),
                            outcome("proofs", "same_mapping", "none", "batched", "proved"),
                            outcome("proofs", "same_mapping", "m1", "batched", "refuted"),
                            outcome("proofs", "same_mapping", "m2", "batched", "refuted"),
                            outcome("scenarios", "t", "none", "batched", "error")};
  v[2].as_expected = false;
  v[2].trace = "traces/s.m1.json";
  v[2].r.events.push_back({36, 1, "check_deref", "", "assert", "", "", "model/page_tables.cpp:61", true, ""});
  std::set<std::string> names;
  for (const Outcome& o : v) EXPECT_TRUE(names.insert(case_name(o)).second) << "duplicate: " << case_name(o);
  std::string x = junit_xml(v);
  EXPECT_NE(x.find("tests=\"7\" failures=\"1\" errors=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("file=\"model/page_tables.cpp\" line=\"61\""), std::string::npos) << x;
  EXPECT_NE(x.find("trace: traces/s.m1.json"), std::string::npos) << x;
  EXPECT_NE(x.find("<error message="), std::string::npos) << x;
  std::string md = markdown_summary(v);
  EXPECT_NE(md.find("| **FAIL** | m1 caught by s |"), std::string::npos) << md;
  EXPECT_NE(md.find("`traces/s.m1.json`"), std::string::npos) << md;
  EXPECT_LT(md.find("**FAIL**"), md.find("| ok |")) << "failures come first";
}

// Checked before a minute of exploration: each of these is refused at once.
TEST(AllPaths, CheckedBeforeRunning) {
  const std::string file = testing::TempDir() + "vmaverify_all_plain_file";
  std::ofstream(file) << "x";
  struct Case {
    std::string args, says;
  } cases[] = {
      {"all --junit /nonexistent/dir/j.xml", "all: --junit /nonexistent/dir/j.xml: cannot write"},
      {"all --junit " + testing::TempDir(), "is a directory"},
      {"all --traces " + file, "all: --traces " + file + ": not a directory"},
      {"all --traces /nonexistent/a/b", "cannot create directory"},
      {"all --summary /nonexistent/dir/s.md", "--summary /nonexistent/dir/s.md: cannot write"},
  };
  for (const Case& c : cases) {
    BinaryRun r = run_vmaverify(c.args + " --quiet");
    expect_usage_error(r, c.args);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
  std::remove(file.c_str());
}

static std::string temp_dir(const std::string& name) {
  std::string d = testing::TempDir() + "vmaverify_" + name;
  mkdir(d.c_str(), 0777);
  return d;
}

TEST(Specs, AnEmptySpecsDirectoryIsAnErrorNamingIt) {
  const std::string empty = temp_dir("empty_specs");
  for (const char* cmd : {"all --quiet", "prove"}) {
    BinaryRun r = run_vmaverify(std::string(cmd) + " --specs " + empty);
    expect_usage_error(r, cmd);
    EXPECT_NE(r.err.find("no spec files found in " + empty), std::string::npos) << cmd << ": " << r.err;
  }
}

TEST(Specs, ADirectoryArgumentSaysSo) {
  const std::string dir = temp_dir("dir_as_spec");
  BinaryRun r = run_vmaverify("prove " + dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(dir + ": is a directory"), std::string::npos) << r.err;  // errors go to stderr
}

// A spec false on the correct model "refutes" every mutant; it must not be credited.
TEST(Specs, AFalseSpecRefutesNoMutant) {
  const std::string dir = temp_dir("false_specs");
  std::ofstream(dir + "/always_empty.smt2") << "; false after the first add\n(assert (= count 0))\n";
  BinaryRun r = run_vmaverify("prove --json --specs " + dir);
  EXPECT_EQ(r.status, 1) << r.err;
  std::istringstream lines(r.out);
  int mutants = 0;
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j.at("mutant") == "none") {
      EXPECT_EQ(j.at("result"), "refuted") << line;
      continue;
    }
    mutants++;
    EXPECT_NE(j.at("result"), "refuted") << line;
    EXPECT_NE(j.at("message").get<std::string>().find("not counted, not proved on the correct model: always_empty"),
              std::string::npos)
        << line;
  }
  EXPECT_GE(mutants, 7);
  // The text says it once, not on every mutant's line.
  r = run_vmaverify("prove --specs " + dir);
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string note = "not counted against the mutants below, not proved on the correct model: always_empty";
  EXPECT_NE(r.out.find(note), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(note, r.out.find(note) + 1), std::string::npos) << "said twice: " << r.out;
  EXPECT_EQ(r.out.find("(not counted"), std::string::npos) << r.out;
}
