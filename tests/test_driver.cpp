// The exploration driver and the command line: budgets, search kinds, exit statuses, errors.
#include <gtest/gtest.h>
#include <cstdio>
#include <string>
#include <nlohmann/json.hpp>
#include "verify/search/scenario.hpp"

struct Cmd {
  int status;
  std::string out;
};
static Cmd vmaverify(const std::string& args) {
  std::string cmd = std::string(VMAVERIFY_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

TEST(Driver, TinyBudgetIsIncompleteNotVerified) {
  RunOptions o;
  o.budget = 10;
  RunResult r = run_scenario(*find_scenario("rwsem_reader_writer"), o, false);
  EXPECT_EQ(r.result, "incomplete");
  EXPECT_EQ(r.iterations, 10u);
}

TEST(Driver, RandomSearchNeverClaimsVerified) {
  RunOptions o;
  SearchSpec::parse("random:50", &o.search, nullptr);
  RunResult r = run_scenario(*find_scenario("rwsem_two_writers"), o, true);
  EXPECT_EQ(r.result, "incomplete");
  EXPECT_EQ(r.iterations, 50u);
}

TEST(Driver, SearchSpecParsing) {
  SearchSpec s;
  std::string err;
  EXPECT_TRUE(SearchSpec::parse("bound:3", &s, &err));
  EXPECT_EQ(s.str(), "bound:3");
  for (const char* bad : {"", "bound", "bound:", "bound:x", "random:0", "depth:2", "full:1"})
    EXPECT_FALSE(SearchSpec::parse(bad, &s, &err)) << bad;
}

TEST(Cli, RunVerifiedExitsZeroWithJson) {
  Cmd c = vmaverify("run rwsem_two_writers --json --quiet");
  EXPECT_EQ(c.status, 0) << c.out;
  nlohmann::json v = nlohmann::json::parse(c.out);
  EXPECT_EQ(v["result"], "verified");
  EXPECT_EQ(v["scenario"], "rwsem_two_writers");
  EXPECT_GT(v["iterations"], 0);
}

TEST(Cli, CounterexampleExitsOne) {
  Cmd c = vmaverify("run rwsem_two_writers --mutant up_write_relaxed --quiet");
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_NE(c.out.find("data race"), std::string::npos);
}

TEST(Cli, BudgetExhaustedExitsThree) {
  Cmd c = vmaverify("run rwsem_reader_writer --budget 5 --quiet");
  EXPECT_EQ(c.status, 3) << c.out;
  EXPECT_NE(c.out.find("incomplete"), std::string::npos);
}

TEST(Cli, BadInputExitsTwoWithOneClearLine) {
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"run no_such_scenario", "SCENARIO: unknown scenario \"no_such_scenario\""},
      {"run rwsem_two_writers --mutant nope", "--mutant: unknown mutant \"nope\""},
      {"run rwsem_two_writers --search depth:3", "--search: bad search 'depth:3'"},
      {"run rwsem_two_writers --frobnicate", "not expected: --frobnicate"},
      {"run rwsem_two_writers --budget -1", "--budget: Value -1 not in range"},
      {"run", "SCENARIO is required"},
      {"list --json extra", "not expected: extra"},
      {"explode", "unknown command \"explode\""},
      {"replay /nonexistent/trace.json", "cannot read trace file"},
  };
  for (const Case& k : cases) {
    Cmd c = vmaverify(k.args);
    EXPECT_EQ(c.status, 2) << k.args << ": " << c.out;
    EXPECT_NE(c.out.find(k.says), std::string::npos) << k.args << ": " << c.out;
    EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 1) << k.args << ": " << c.out;
  }
}

TEST(Cli, ListJsonHasScenariosAndMutants) {
  Cmd c = vmaverify("list --json");
  ASSERT_EQ(c.status, 0);
  nlohmann::json v = nlohmann::json::parse(c.out);
  EXPECT_EQ(v["scenarios"].size(), all_scenarios().size());
  for (const nlohmann::json& m : v["mutants"]) {
    ASSERT_TRUE(m.contains("caught_by"));
    EXPECT_NE(find_scenario(m["caught_by"].get<std::string>()), nullptr) << m["caught_by"];
  }
}
