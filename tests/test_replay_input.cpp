// replay reads JSON: malformed, truncated, deeply nested, oversized and ill-typed trace files
// are exit 2 with one stderr line naming the file (and, for bad JSON, where it broke); never a crash.
#include <gtest/gtest.h>
#include <unistd.h>
#include <fstream>
#include <sstream>
#include <string>
#include <nlohmann/json.hpp>
#include "tests/run_binary.hpp"
#include "verify/report/trace.hpp"

namespace {

std::string temp_file(const std::string& name, const std::string& content) {
  std::string path = testing::TempDir() + "vmaverify_replay_" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// A real trace, as run --trace writes it.
std::string real_trace() {
  std::string path = testing::TempDir() + "vmaverify_replay_real.json";
  BinaryRun r = run_vmaverify("run rwsem_two_writers --mutant up_write_relaxed --quiet --trace '" + path + "'");
  EXPECT_EQ(r.status, 1) << r.err;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The trace with one field replaced.
std::string trace_with(const std::string& key, const nlohmann::json& value) {
  nlohmann::json j = nlohmann::json::parse(real_trace());
  j[key] = value;
  return j.dump();
}

// A trace edited and its fingerprint recomputed, as a deliberate forger would: what replay must
// still refuse on the edited field's own merits, before the state reaches Relacy.
std::string resigned(nlohmann::json j) {
  RunResult r;
  r.scenario = j.at("scenario").get<std::string>();
  r.mutant = j.at("mutant").get<std::string>();
  r.variant = j.at("variant").get<std::string>();
  r.search = j.at("search").get<std::string>();
  r.state = j.at("state").get<std::string>();
  j["fingerprint"] = trace_fingerprint(r);
  return j.dump();
}
std::string signed_with(const std::string& key, const nlohmann::json& value) {
  return resigned(nlohmann::json::parse(trace_with(key, value)));
}

BinaryRun replay(const std::string& path) { return run_vmaverify("replay '" + path + "'"); }

struct BadTrace {
  const char* name;
  std::string content;
  std::string says;
};

void expect_rejected(const BadTrace& t) {
  std::string path = temp_file(t.name, t.content);
  BinaryRun r = replay(path);
  expect_usage_error(r, t.name);
  EXPECT_EQ(r.err.rfind("vmaverify: replay: " + path + ": ", 0), 0u) << t.name << ": " << r.err;
  EXPECT_NE(r.err.find(t.says), std::string::npos) << t.name << ": " << r.err;
  EXPECT_LT(r.err.size(), 600u) << t.name;
  std::remove(path.c_str());
}

}  // namespace

TEST(ReplayInput, RealTraceReplays) {
  std::string path = temp_file("ok.json", real_trace());
  BinaryRun r = replay(path);
  EXPECT_EQ(r.status, 1) << r.err;  // the counterexample again
  EXPECT_NE(r.out.find("reproduced the recorded failure"), std::string::npos) << r.out;
}

TEST(ReplayInput, MalformedJsonGivesTheLibrarysPosition) {
  const std::string trace = real_trace();
  const BadTrace cases[] = {
      {"empty", "", "not JSON: byte 1: parse error at line 1, column 1"},
      {"word", "not json", "not JSON: byte 2: parse error at line 1, column 2"},
      {"open_brace", "{", "not JSON: byte 2: parse error at line 1, column 2"},
      {"second_line", "{\n  \"schema\": ,\n}", "parse error at line 2, column 13"},
      {"truncated", trace.substr(0, trace.size() / 2), "not JSON: byte " + std::to_string(trace.size() / 2 + 1)},
      {"trailing", trace + "x", "not JSON: byte " + std::to_string(trace.size() + 1)},
      {"nul_byte", std::string("{\"schema\"\0: 1}", 14), "not JSON: byte 10"},
      {"raw_newline_in_string", "{\"schema\": \"a\nb\"}", "not JSON: byte 14"},
      {"invalid_utf8", "{\"schema\": \"\xff\"}", "not JSON: byte 13"},
      {"bad_escape", "{\"schema\": \"\\x\"}", "not JSON: byte 14"},
      {"lone_surrogate", "{\"schema\": \"\\ud800\"}", "not JSON: byte"},
      {"number_overflow", "{\"failing_step\": 1e400}", "not JSON: "},
  };
  for (const BadTrace& t : cases) expect_rejected(t);
}

TEST(ReplayInput, DeeplyNested) {
  const std::string open(100000, '['), close(100000, ']');
  expect_rejected({"deep_unclosed", open, "not JSON: byte 100001: parse error at line 1, column 100001"});
  expect_rejected({"deep_array", open + close, "not a vmaverify trace (not a JSON object)"});
  expect_rejected({"deep_field", "{\"schema\": \"vmaverify-trace/2\", \"scenario\": " + open + close + "}",
                   "not a vmaverify trace (no string field 'scenario')"});
}

TEST(ReplayInput, Oversized) {
  // Larger than any trace: refused before it is read (a sparse file: no disk used).
  std::string path = temp_file("huge.json", "");
  ASSERT_EQ(truncate(path.c_str(), (64LL << 20) + 1), 0);
  BinaryRun r = replay(path);
  expect_usage_error(r, "huge");
  EXPECT_NE(r.err.find(path + ": 67108865 bytes, larger than a trace can be"), std::string::npos) << r.err;
  std::remove(path.c_str());
  // Large values inside the limit: named, shortened, on one line.
  expect_rejected({"long_scenario", trace_with("scenario", std::string(8 << 20, 'a')), "unknown scenario \"aaaa"});
  expect_rejected({"multiline_scenario", trace_with("scenario", "x\ny"), "unknown scenario \"x\\ny\""});
  expect_rejected({"long_mutant", trace_with("mutant", std::string(1 << 20, 'm')), "unknown mutant \"mmmm"});
  expect_rejected({"huge_step", trace_with("failing_step", 1e30), "no integer field 'failing_step'"});
  expect_rejected({"step_past_int", trace_with("failing_step", 1LL << 32), "no integer field 'failing_step'"});
  expect_rejected({"huge_integer", "{\"schema\": \"vmaverify-trace/2\", \"failing_step\": 99999999999999999999999}",
                   "not a vmaverify trace"});
}

TEST(ReplayInput, WrongShape) {
  const BadTrace cases[] = {
      {"array", "[]", "not a vmaverify trace (not a JSON object)"},
      {"number", "42", "not a vmaverify trace (not a JSON object)"},
      {"no_schema", "{}", "no \"schema\": \"vmaverify-trace/2\""},
      {"old_schema", trace_with("schema", "vmaverify-trace/1"), "no \"schema\": \"vmaverify-trace/2\""},
      {"other_schema", trace_with("schema", "other/9"), "no \"schema\": \"vmaverify-trace/2\""},
      {"scenario_number", trace_with("scenario", 5), "no string field 'scenario'"},
      {"state_null", trace_with("state", nullptr), "no string field 'state'"},
      {"step_string", trace_with("failing_step", "13"), "no integer field 'failing_step'"},
      {"step_fraction", trace_with("failing_step", 1.5), "no integer field 'failing_step'"},
      {"bad_search", trace_with("search", "depth:3"), "search \"depth:3\" is not full, bound:N or random:N"},
      {"state_negative", signed_with("state", "-1 -1 -1"), "is not a Relacy search state"},
      {"state_huge_count", signed_with("state", "1 4294967295"), "is not a Relacy search state"},
      {"state_words", signed_with("state", "abc"), "is not a Relacy search state"},
      // Well-formed and as long as the real one, but not the recorded state.
      {"state_edited", trace_with("state", "1 0"), "fields scenario, mutant, variant, search and state were not recorded together"},
      {"no_fingerprint", trace_with("fingerprint", nullptr), "no string field 'fingerprint'"},
      {"no_model_hash", trace_with("model_hash", nullptr), "no string field 'model_hash'"},
      {"state_empty", trace_with("state", ""), "state is empty"},
      {"state_index_huge", signed_with("state", "0 1 2 4000000000 0"), "has more than 9 digits"},
      {"state_index_past_count", signed_with("state", "0 1 2 2 0"), "node 0 (2 2 0) is not a decision of a scenario with 2 threads"},
      {"state_more_threads", signed_with("state", "0 2 2 1 0 9 3 0"), "node 1 (9 3 0) is not a decision"},
      {"state_bad_type", signed_with("state", "0 1 2 1 7"), "node 0 (2 1 7)"},
      {"state_too_many_nodes", signed_with("state", "0 2000000"), "not an iteration, a node count and three numbers per node"},
      {"variant_garbage", trace_with("variant", "sideways"), "variant \"sideways\" is not batched or unbatched"},
      {"kind_empty", trace_with("kind", ""), "kind \"\" is not a failure kind"},
  };
  for (const BadTrace& t : cases) expect_rejected(t);
}

// The same interleaving on another scenario means nothing: refused before it runs.
TEST(ReplayInput, RetargetedToAnotherScenario) {
  expect_rejected({"retargeted", trace_with("scenario", "rwsem_reader_writer"), "retargeted to scenario \"rwsem_reader_writer\""});
  expect_rejected({"remutated", trace_with("mutant", "up_read_no_wake"), "(fingerprint mismatch): the trace was edited"});
}

// Exit 1 only when the recorded failure comes back; otherwise exit 4 and the reason.
TEST(ReplayStatus, NotReproducedIsExit4WithTheReason) {
  struct Case {
    const char* name;
    std::string trace, reason;
  } cases[] = {
      {"other_kind", trace_with("kind", "deadlock"), "did NOT reproduce the recorded deadlock"},
      {"other_step", trace_with("failing_step", 1), "did NOT reproduce the recorded data race at step 1: it failed at step"},
  };
  for (const Case& c : cases) {
    std::string path = temp_file(c.name, c.trace);
    BinaryRun r = replay(path);
    EXPECT_EQ(r.status, 4) << c.name << ": " << r.out << r.err;
    EXPECT_NE(r.out.find(c.reason), std::string::npos) << c.name << ": " << r.out;
    r = run_vmaverify("replay --json '" + path + "'");
    EXPECT_EQ(r.status, 4) << c.name;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("reproduced"), false);
    EXPECT_TRUE(j.at("reason").is_string());
    std::remove(path.c_str());
  }
}

TEST(ReplayInput, RandomSearchStateMustBeOneOfItsIterations) {
  nlohmann::json j = nlohmann::json::parse(real_trace());
  j["search"] = "random:5";
  j["state"] = "7";
  expect_rejected({"random_past_n", resigned(j), "iteration 7 is not one of the search's 1..5"});
  j["state"] = "0";
  expect_rejected({"random_zero", resigned(j), "iteration 0 is not one of the search's 1..5"});
  j["state"] = "4294967296";
  expect_rejected({"random_huge", resigned(j), "has more than 9 digits"});
  j["state"] = "1 2";
  expect_rejected({"random_two_numbers", resigned(j), "a random search saves one number"});
}

// Edited states (a digit changed): rejected, replayed or not reproduced, never a crash.
TEST(ReplayInput, DigitFlipsNeverCrash) {
  nlohmann::json j = nlohmann::json::parse(real_trace());
  const std::string state = j["state"];
  unsigned seed = 16;
  for (int k = 0; k < 30; k++) {
    std::string edited = state;
    seed = seed * 1103515245 + 12345;
    size_t at = (seed >> 8) % edited.size();
    if (edited[at] == ' ') continue;
    edited[at] = (char)('0' + (seed >> 20) % 10);
    j["state"] = edited;
    std::string path = temp_file("flip.json", resigned(j));
    BinaryRun r = replay(path);
    EXPECT_NE(r.status, -1) << "state " << edited << " crashed replay: " << r.err;
    std::remove(path.c_str());
  }
}

TEST(ReplayStatus, SaysWhenTheModelChanged) {
  std::string path = temp_file("model_changed.json", trace_with("model_hash", "0123456789abcdef"));
  BinaryRun r = replay(path);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("the model changed since the trace was recorded"), std::string::npos) << r.out;
  path = temp_file("same_model.json", real_trace());
  r = replay(path);
  EXPECT_EQ(r.out.find("changed since the trace was recorded"), std::string::npos) << r.out;
}

TEST(ReplayInput, MissingOrUnreadableFile) {
  BinaryRun r = replay("/nonexistent/trace.json");
  expect_usage_error(r, "missing");
  EXPECT_NE(r.err.find("cannot read trace file '/nonexistent/trace.json'"), std::string::npos) << r.err;
  r = run_vmaverify("replay " + testing::TempDir());
  expect_usage_error(r, "directory");
  EXPECT_NE(r.err.find("cannot read trace file"), std::string::npos) << r.err;
}

// A spec violation found with all --specs DIR replays against DIR: without it, the default
// specs hold in that state and the replay says it did not reproduce (exit 4).
TEST(ReplayStatus, ASpecViolationReplaysWithTheSpecsItWasFoundWith) {
  const std::string dir = ::testing::TempDir() + "vmaverify_replay_specs_" + std::to_string(getpid());
  const std::string specs = dir + "/specs", traces = dir + "/traces";
  ASSERT_EQ(std::system(("mkdir -p '" + specs + "' && cp '" + std::string(VMAVERIFY_SOURCE) + "'/proofs/specs/*.smt2 '" +
                         specs + "'").c_str()),
            0);
  std::ofstream(specs + "/always_empty.smt2") << "; the batch never holds a VMA (false)\n(assert (= count 0))\n";
  BinaryRun r = run_vmaverify("all --quiet --specs '" + specs + "' --only scenarios/teardown_two_files --traces '" + traces + "'");
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  const std::string trace = traces + "/teardown_two_files.json";
  r = run_vmaverify("replay '" + trace + "'");
  EXPECT_EQ(r.status, 4) << r.out << r.err;
  r = run_vmaverify("replay --specs '" + specs + "' '" + trace + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("violates always_empty"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replay: reproduced the recorded failure"), std::string::npos) << r.out;
  r = run_vmaverify("replay --specs '" + dir + "/none' '" + trace + "'");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
}
