// vmaverify merge: one verdict from the results of `run --shard I/N --json`, one file each.
#include <sys/stat.h>
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <CLI/CLI.hpp>
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"
#include "verify/report/result_output.hpp"
#include "model/mutants.hpp"
#include "verify/search/scenario.hpp"
#include "verify/search/shards.hpp"

namespace {

struct MergeArgs {
  std::vector<std::string> files;
  bool json = false;
};

constexpr size_t kMostBytes = 1 << 20;  // a shard result is one line of a few hundred bytes

// One shard's result from FILE (the object `run --json` prints); false with *err naming it.
bool read_shard(const std::string& file, RunResult* r, std::string* err) {
  struct stat st;
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = file + ": not a readable regular file";
    return false;
  }
  if ((size_t)st.st_size > kMostBytes) {
    *err = file + ": larger than " + std::to_string(kMostBytes) + " bytes: not a shard result";
    return false;
  }
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  Json j;
  // A key given twice in one object (nlohmann keeps the last): which one is the shard's word?
  std::string twice;
  std::vector<std::set<std::string>> keys;
  const Json::parser_callback_t cb = [&](int depth, Json::parse_event_t e, Json& parsed) {
    if (e == Json::parse_event_t::object_start) keys.emplace_back();
    if (e == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (e == Json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
        twice.empty())
      twice = parsed.get<std::string>();
    return true;
  };
  try {
    j = Json::parse(ss.str(), cb);
  } catch (const Json::parse_error& e) {
    *err = file + ": not JSON (" + e.what() + ")";
    return false;
  }
  if (!twice.empty()) {
    *err = file + ": key \"" + twice + "\" given twice: not the output of run --json";
    return false;
  }
  if (!j.is_object()) {
    *err = file + ": not a JSON object (expected the output of run --shard I/N --json)";
    return false;
  }
  for (const char* key : {"scenario", "mutant", "variant", "search", "result", "kind", "message", "shard",
                          "shard_search", "fingerprint"})
    if (!j.contains(key) || !j[key].is_string()) {
      *err = file + ": field \"" + key + "\" missing or not a string (expected the output of run --shard I/N --json)";
      return false;
    }
  if (!j.contains("iterations") || !j["iterations"].is_number_unsigned() || !j.contains("seconds") ||
      !j["seconds"].is_number() || j["seconds"].get<double>() < 0 || !j.contains("budget") ||
      !j["budget"].is_number_unsigned()) {
    *err = file + ": fields \"iterations\" and \"budget\" (integers >= 0) and \"seconds\" (a number >= 0) are required";
    return false;
  }
  RunResult out;
  out.scenario = j["scenario"], out.mutant = j["mutant"], out.variant = j["variant"], out.search = j["search"];
  out.result = j["result"], out.kind = j["kind"], out.message = j["message"], out.shard = j["shard"];
  out.iterations = j["iterations"], out.seconds = j["seconds"];
  out.shard_search = j["shard_search"], out.fingerprint = j["fingerprint"], out.budget = j["budget"];
  // What a shard result names must exist here, and be a search that splits into shards.
  if (!find_scenario(out.scenario) || (out.mutant != "none" && !find_mutant(out.mutant)) ||
      (out.variant != "batched" && out.variant != "unbatched") ||
      (out.shard_search != "full" && out.shard_search != "full+reduce")) {
    *err = file + ": scenario " + shown(out.scenario) + ", mutant " + shown(out.mutant) + ", variant " +
           shown(out.variant) + ", search " + shown(out.shard_search) +
           ": not a sharded full search of this vmaverify (vmaverify list)";
    return false;
  }
  if (out.result != "verified" && out.result != "counterexample" && out.result != "incomplete" && out.result != "error") {
    *err = file + ": result " + shown(out.result) + " is not verified, counterexample, incomplete or error";
    return false;
  }
  for (const auto& kv : j.items()) {
    if (kv.key() == "spec" && kv.value().is_string()) out.violated_spec = kv.value();
    else if (kv.value().is_number_integer() && kv.key() != "iterations") out.stats[kv.key()] = kv.value();
  }
  *r = out;
  return true;
}

int merge(const MergeArgs& a) {
  if (a.files.empty()) return usage_error("merge: no FILE given: the results of run --shard I/N --json");
  std::vector<RunResult> parts;
  std::string err;
  for (const std::string& f : a.files) {
    RunResult r;
    if (!read_shard(f, &r, &err)) return usage_error("merge: " + err);
    parts.push_back(r);
  }
  RunResult merged;
  if (!merge_shards(parts, &merged, &err)) return usage_error("merge: " + err);
  std::printf("%s\n", a.json ? json_line(result_json(merged)).c_str() : result_text(merged).c_str());
  return exit_status(merged);
}

CommandRun define_merge(CLI::App& cmd) {
  auto a = std::make_shared<MergeArgs>();
  // Not CLI11's required(): its usage line would not be the README's [FILE...] form.
  cmd.add_option("FILE", a->files, "the results of run --shard I/N --json, one file per shard (at least one)")
      ->type_name("");
  cmd.add_flag("--json", a->json, "print one JSON object (run's fields)");
  return [a] { return merge(*a); };
}

}  // namespace

static CommandRegistrar reg({"merge", "Combine the results of the shards of one search into one verdict.", &define_merge});
