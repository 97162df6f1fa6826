// Counterexample traces: every mutant's saved trace replays to the same failure at the same
// step; the JSON trace follows its schema; JUnit output parses with the right counts.
#include <regex>
#include <gtest/gtest.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include "model/mutants.hpp"
#include "verify/checks/all.hpp"
#include "verify/report/junit.hpp"
#include "verify/search/scenario.hpp"
#include "verify/report/trace.hpp"

static std::string temp_path(const std::string& name) {
  return testing::TempDir() + "vmaverify_" + name;
}

static std::vector<std::string> mutant_names() {
  std::vector<std::string> v;
  for (const MutantInfo& m : all_mutants()) v.push_back(m.name);
  return v;
}

class MutantTrace : public testing::TestWithParam<std::string> {};
TEST_P(MutantTrace, SavedTraceReplaysToSameFailureAndStep) {
  const MutantInfo* m = find_mutant(GetParam());
  RunOptions o;
  o.mutant = m->name;
  RunResult r = run_scenario(*find_scenario(m->caught_by), o, false);
  ASSERT_EQ(r.result, "counterexample");
  ASSERT_FALSE(r.events.empty());
  EXPECT_TRUE(r.events.back().failing);
  std::string file = temp_path(m->name + std::string(".json")), err;
  ASSERT_TRUE(write_trace(file, r, &err)) << err;

  RunResult saved;
  ASSERT_TRUE(read_trace(file, &saved, &err)) << err;
  RunOptions again;
  again.mutant = saved.mutant;
  again.initial_state = saved.state;
  again.budget = 1;
  ASSERT_TRUE(SearchSpec::parse(saved.search, &again.search, &err));
  RunResult replayed = run_scenario(*find_scenario(saved.scenario), again, true);
  EXPECT_EQ(replayed.result, "counterexample");
  EXPECT_EQ(replayed.kind, m->kind);
  EXPECT_EQ(replayed.failing_step, saved.failing_step);
  EXPECT_EQ(replayed.message, r.message);
}
INSTANTIATE_TEST_SUITE_P(All, MutantTrace, testing::ValuesIn(mutant_names()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

// The documented schema (verify/README.md, "Counterexample traces"): required fields and their types.
static void expect_schema(const nlohmann::json& v) {
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.at("schema"), "vmaverify-trace/2");
  for (const char* k : {"scenario", "mutant", "variant", "search", "state", "result", "kind", "message", "model_hash",
                        "binary_hash", "fingerprint"})
    EXPECT_TRUE(v.at(k).is_string()) << k;
  EXPECT_TRUE(v.at("failing_step").is_number_integer());
  ASSERT_TRUE(v.at("events").is_array());
  ASSERT_FALSE(v.at("events").empty());
  int failing = 0;
  for (const nlohmann::json& e : v.at("events")) {
    for (const char* k : {"step", "thread"}) EXPECT_TRUE(e.at(k).is_number_integer()) << k;
    for (const char* k : {"function", "object", "operation", "value", "order", "source", "chain"})
      EXPECT_TRUE(e.at(k).is_string()) << k;
    ASSERT_TRUE(e.at("failing").is_boolean());
    failing += e.at("failing").get<bool>();
    EXPECT_EQ(e.at("source").get<std::string>().find("/work"), std::string::npos) << "machine path in trace";
  }
  EXPECT_EQ(failing, 1);
  EXPECT_TRUE(v.at("events").back().at("failing").get<bool>());
  EXPECT_EQ(v.at("events").back().at("step"), v.at("failing_step"));
}

TEST(Trace, JsonFollowsSchemaAndNamesObjects) {
  RunOptions o;
  o.mutant = "final_after_free_pgd_range";
  RunResult r = run_scenario(*find_scenario("teardown_vs_rmap_walk"), o, false);
  const nlohmann::json v = nlohmann::json::parse(trace_json(r));
  expect_schema(v);
  // A table word is named by the entry, the table it points to and the table the entry lives
  // in: "pud entry -> PMD table 0x7f0000000000 (in PUD table 0x7f0000000000) of exiting process".
  bool named = false;
  for (const nlohmann::json& e : v.at("events"))
    named |= e.at("object").get<std::string>() ==
             "pud entry -> PMD table 0x7f0000000000 (in PUD table 0x7f0000000000) of exiting process";
  EXPECT_TRUE(named);
  EXPECT_NE(trace_text(r).find("rmap walker dereferenced"), std::string::npos);
  EXPECT_NE(trace_text(r).find("after free_pgd_range freed it"), std::string::npos);
  // The walker's stale read of the pgd entry says which store it missed and why.
  EXPECT_TRUE(std::regex_search(trace_text(r), std::regex(R"(present \(stale: T0's store at step \d+ is later and does not happen before this load\))")))
      << trace_text(r);
}

TEST(Trace, NoRelacySetUpNoise) {
  RunOptions o;
  o.mutant = "up_write_relaxed";
  RunResult r = run_scenario(*find_scenario("rwsem_two_writers"), o, false);
  std::string t = trace_text(r);
  for (const char* noise : {"CTOR", "BEFORE", "DTOR", "0x"}) EXPECT_EQ(t.find(noise), std::string::npos) << noise << "\n" << t;
}

// A minimal XML reader: checks well-formedness and counts elements.
static bool xml_wellformed(const std::string& x, std::map<std::string, int>* counts, std::string* err) {
  std::vector<std::string> stack;
  for (size_t i = 0; (i = x.find('<', i)) != std::string::npos;) {
    size_t end = x.find('>', i);
    if (end == std::string::npos) return *err = "unterminated tag", false;
    std::string tag = x.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag[0] == '?') continue;
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return *err = "mismatched </" + tag.substr(1) + ">", false;
      stack.pop_back();
      continue;
    }
    std::string name = tag.substr(0, tag.find_first_of(" /"));
    (*counts)[name]++;
    if (tag.back() != '/') stack.push_back(name);
  }
  if (!stack.empty()) return *err = "unclosed <" + stack.back() + ">", false;
  return true;
}

TEST(Junit, ParsesWithTheRightCounts) {
  std::vector<Outcome> outcomes(3);
  outcomes[0].group = "scenarios";
  outcomes[0].r.scenario = "a<b";
  outcomes[0].r.result = "verified";
  outcomes[0].as_expected = true;
  outcomes[1].group = "mutants";
  outcomes[1].r.scenario = "s";
  outcomes[1].r.mutant = "m";
  outcomes[1].r.result = "verified";
  outcomes[1].expected = "counterexample (data race)";
  outcomes[2].group = "proofs";
  outcomes[2].r.scenario = "spec & \"x\"";
  outcomes[2].r.result = "proved";
  outcomes[2].as_expected = true;
  std::string x = junit_xml(outcomes), err;
  std::map<std::string, int> counts;
  ASSERT_TRUE(xml_wellformed(x, &counts, &err)) << err << "\n" << x;
  EXPECT_EQ(counts["testcase"], 3);
  EXPECT_EQ(counts["failure"], 1);
  EXPECT_NE(x.find("tests=\"3\" failures=\"1\""), std::string::npos);
}
