// The JSON every command prints, against the schemas verify/README.md documents ("Using it";
// "Counterexample traces" is checked in test_traces.cpp): field names and JSON types.
#include <gtest/gtest.h>
#include <fstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "tests/run_binary.hpp"
#include "verify/report/json_out.hpp"
#include "verify/report/result_output.hpp"
#include "verify/search/scenario.hpp"

using nlohmann::json;

namespace {

enum class Type { string, integer, number, boolean, array };

bool has_type(const json& v, Type t) {
  switch (t) {
    case Type::string: return v.is_string();
    case Type::integer: return v.is_number_integer();
    case Type::number: return v.is_number();
    case Type::boolean: return v.is_boolean();
    case Type::array: return v.is_array();
  }
  return false;
}

using Fields = std::vector<std::pair<const char*, Type>>;

void expect_fields(const json& j, const Fields& fields, const std::string& what) {
  ASSERT_TRUE(j.is_object()) << what << ": " << j;
  for (const auto& f : fields) {
    ASSERT_TRUE(j.contains(f.first)) << what << ": no " << f.first << " in " << j;
    EXPECT_TRUE(has_type(j.at(f.first), f.second)) << what << ": " << f.first << " in " << j;
  }
}

// One JSON object on the one line of stdout.
json one_object(const BinaryRun& r, const std::string& what) {
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << what << ": " << r.out;
  return json::parse(r.out);
}

// run --json: these, plus scenario figures (integers) and `spec` when an explored batch state
// violates one.
const Fields kRunFields = {{"scenario", Type::string}, {"mutant", Type::string},   {"variant", Type::string},
                           {"search", Type::string},   {"result", Type::string},   {"kind", Type::string},
                           {"message", Type::string},  {"iterations", Type::integer}, {"seconds", Type::number}};

void expect_run_schema(const json& j, const std::string& what) {
  expect_fields(j, kRunFields, what);
  for (const auto& kv : j.items()) {
    bool documented = false;
    for (const auto& f : kRunFields) documented |= kv.key() == f.first;
    if (documented) continue;
    if (kv.key() == "spec")
      EXPECT_TRUE(kv.value().is_string()) << what;
    else
      EXPECT_TRUE(kv.value().is_number_integer()) << what << ": figure " << kv.key() << " in " << j;
  }
}

}  // namespace

TEST(JsonSchema, RunVerified) {
  BinaryRun r = run_vmaverify("run rwsem_two_writers --json --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = one_object(r, "run");
  expect_run_schema(j, "run");
  EXPECT_EQ(j.at("result"), "verified");
  EXPECT_EQ(j.at("mutant"), "none");
  EXPECT_EQ(j.at("variant"), "batched");
}

TEST(JsonSchema, RunTeardownHasLockFigures) {
  for (const char* variant : {"", " --unbatched"}) {
    BinaryRun r = run_vmaverify(std::string("run teardown_vs_rmap_walk --json --quiet") + variant);
    ASSERT_EQ(r.status, 0) << r.err;
    json j = one_object(r, variant);
    expect_run_schema(j, variant);
    expect_fields(j, {{"write_locks_batched", Type::integer}, {"write_locks_unbatched", Type::integer},
                      {"write_locks_explored", Type::integer}},
                  variant);
    EXPECT_EQ(j.at("write_locks_explored"), j.at(*variant ? "write_locks_unbatched" : "write_locks_batched"));
  }
}

TEST(JsonSchema, RunCounterexample) {
  BinaryRun r = run_vmaverify("run rwsem_two_writers --mutant up_write_relaxed --json --quiet");
  ASSERT_EQ(r.status, 1) << r.err;
  json j = one_object(r, "run mutant");
  expect_run_schema(j, "run mutant");
  EXPECT_EQ(j.at("result"), "counterexample");
  EXPECT_EQ(j.at("kind"), "data race");
}

TEST(JsonSchema, ReplayAddsFailingStepAndReproduced) {
  std::string trace = testing::TempDir() + "vmaverify_schema_trace.json";
  ASSERT_EQ(run_vmaverify("run rwsem_two_writers --mutant up_write_relaxed --quiet --trace '" + trace + "'").status, 1);
  BinaryRun r = run_vmaverify("replay '" + trace + "' --json");
  ASSERT_EQ(r.status, 1) << r.err;
  json j = one_object(r, "replay");
  expect_fields(j, {{"failing_step", Type::integer}, {"reproduced", Type::boolean}, {"model_changed", Type::boolean}},
                "replay");
  EXPECT_TRUE(j.at("reproduced").get<bool>());
  EXPECT_FALSE(j.at("model_changed").get<bool>());
  EXPECT_FALSE(j.contains("reason"));  // only when not reproduced
  json run_part = j;
  for (const char* k : {"failing_step", "reproduced", "model_changed"}) run_part.erase(k);
  expect_run_schema(run_part, "replay");
}

TEST(JsonSchema, List) {
  BinaryRun r = run_vmaverify("list --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = one_object(r, "list");
  expect_fields(j, {{"scenarios", Type::array}, {"mutants", Type::array}}, "list");
  EXPECT_EQ(j.at("scenarios").size(), all_scenarios().size());
  for (const json& s : j.at("scenarios"))
    expect_fields(s, {{"name", Type::string}, {"description", Type::string}, {"search", Type::string}}, "scenario");
  ASSERT_FALSE(j.at("mutants").empty());
  for (const json& m : j.at("mutants"))
    expect_fields(m, {{"name", Type::string}, {"description", Type::string}, {"caught_by", Type::string},
                      {"kind", Type::string}},
                  "mutant");
}

TEST(JsonSchema, Prove) {
  std::string spec = testing::TempDir() + "vmaverify_schema_bounded.smt2";
  std::ofstream(spec) << "(assert (<= 0 count 8))\n";
  BinaryRun r = run_vmaverify("prove --json '" + spec + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = one_object(r, "prove");
  expect_fields(j, {{"scenario", Type::string}, {"spec", Type::string}, {"mutant", Type::string},
                    {"search", Type::string}, {"result", Type::string}, {"kind", Type::string},
                    {"message", Type::string}, {"counterexample", Type::string},
                    {"iterations", Type::integer}, {"seconds", Type::number}},
                "prove");
  EXPECT_EQ(j.at("result"), "proved");
  std::remove(spec.c_str());
}

TEST(JsonSchema, Maps) {
  BinaryRun r = run_vmaverify("maps --json " VMAVERIFY_TESTDATA "/sleep.maps");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = one_object(r, "maps");
  Fields fields = {{"reduction_percent", Type::number}, {"histogram", Type::array}};
  for (const char* k : {"processes", "skipped", "vmas", "file_vmas", "files", "lock_acquisitions_unbatched",
                        "lock_acquisitions_batched", "reduction", "removed_unbatched", "removed_batched"})
    fields.push_back({k, Type::integer});
  expect_fields(j, fields, "maps");
  ASSERT_EQ(j.at("histogram").size(), 8u);  // batch sizes 1..8
  for (const json& n : j.at("histogram")) EXPECT_TRUE(n.is_number_integer());
}

// `all --json` prints outcome_json for every check (running `all` here would take minutes).
TEST(JsonSchema, AllOutcome) {
  Outcome o;
  o.r.scenario = "teardown_vs_rmap_walk";
  o.r.mutant = "final_after_free_pgd_range";
  o.r.search = "full";
  o.r.result = "verified";
  o.r.stats["write_locks_batched"] = 1;
  o.expected = "counterexample (use-after-free)";
  o.group = "mutants";
  json j = json::parse(json_line(outcome_json(o, "traces/x.json")));
  expect_fields(j, {{"group", Type::string}, {"expected", Type::string}, {"as_expected", Type::boolean},
                    {"trace", Type::string}}, "all");
  EXPECT_EQ(j.at("group"), "mutants");
  EXPECT_EQ(json_line(outcome_json(o, "")).rfind("{\"group\":\"mutants\",", 0), 0u) << "group comes first";
  EXPECT_FALSE(j.at("as_expected").get<bool>());
  json run_part = j;
  for (const char* k : {"group", "expected", "as_expected", "trace"}) run_part.erase(k);
  expect_run_schema(run_part, "all");
  EXPECT_FALSE(json::parse(json_line(outcome_json(o, ""))).contains("trace"));
}

// The last line of `all --json`: the text output's counts line as one record.
TEST(JsonSchema, AllSummary) {
  json j = json::parse(json_line(summary_json(40, 2, 1, 95.5)));
  expect_fields(j, {{"group", Type::string}, {"checked", Type::integer}, {"as_expected", Type::integer},
                    {"unexpected", Type::integer}, {"incomplete", Type::integer}, {"seconds", Type::number}}, "summary");
  EXPECT_EQ(j.at("group"), "summary");
  EXPECT_EQ(j.at("as_expected"), 37);
}

// Strings that are not valid UTF-8 (a file name, a quoted input) still give valid JSON.
TEST(JsonSchema, InvalidUtf8IsReplacedNotThrown) {
  RunResult r;
  r.scenario = "bad\xff name";
  json j = json::parse(json_line(result_json(r)));
  EXPECT_EQ(j.at("scenario"), "bad\xef\xbf\xbd name");
}
