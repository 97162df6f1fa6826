// vmaverify replay: re-run exactly the interleaving a trace file recorded.
#include <cstdio>
#include <memory>
#include <CLI/CLI.hpp>
#include "proofs/prover.hpp"
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"
#include "verify/report/result_output.hpp"
#include "verify/search/scenario.hpp"
#include "verify/report/trace.hpp"

// What changed in the build since the trace was recorded, or "".
static std::string build_change(const TraceOrigin& recorded) {
  TraceOrigin now = current_origin();
  if (recorded.model_hash != now.model_hash) return "the model changed since the trace was recorded";
  if (recorded.binary_hash != now.binary_hash) return "the vmaverify binary changed since the trace was recorded (the model did not)";
  return "";
}

static int replay(const std::string& file, const std::string& specs, bool json, bool raw, bool chains) {
  // The explored batch states are checked against the spec files: a trace of a spec violation
  // found with all --specs DIR replays against the same DIR.
  if (!specs.empty()) {
    set_specs_dir(specs);
    if (default_spec_files().empty()) return usage_error("replay: --specs " + specs + ": no spec files found");
  }
  RunResult saved;
  TraceOrigin origin;
  std::string err, fingerprint;
  if (!read_trace(file, &saved, &err, &origin, &fingerprint)) return usage_error("replay: " + err);
  const Scenario* s = find_scenario(saved.scenario);
  if (!s) return usage_error("replay: " + file + ": unknown scenario " + shown(saved.scenario));
  if (saved.variant != "batched" && saved.variant != "unbatched")
    return usage_error("replay: " + file + ": variant " + shown(saved.variant) + " is not batched or unbatched");
  const std::string problem = trace_replay_problem(file, saved, fingerprint);
  if (!problem.empty()) return usage_error("replay: " + problem);
  RunOptions o;
  o.mutant = saved.mutant;
  SearchSpec::parse(saved.search, &o.search, &err);  // checked above
  o.initial_state = saved.state;
  o.unbatched = saved.variant == "unbatched";
  o.budget = 1;  // exactly the recorded interleaving
  RunResult r = run_scenario(*s, o, true);
  if (r.result == "error") return usage_error("replay: " + file + ": " + r.message);
  const std::string why_not = replay_difference(saved, r), changed = build_change(origin);
  if (json) {
    Json j = result_json(r);
    j["failing_step"] = r.failing_step;
    j["reproduced"] = why_not.empty();
    if (!why_not.empty()) j["reason"] = why_not;
    j["model_changed"] = changed.rfind("the model", 0) == 0;
    std::printf("%s\n", json_line(j).c_str());
  } else {
    std::printf("%s\n%s", result_text(r).c_str(), r.result == "counterexample" ? trace_text(r, raw, chains).c_str() : "");
    if (why_not.empty())
      std::printf("replay: reproduced the recorded failure (same kind, same failing step)\n");
    else
      std::printf("replay: did NOT reproduce the recorded %s at step %d: %s\n", saved.kind.c_str(), saved.failing_step,
                  why_not.c_str());
    if (!changed.empty()) std::printf("replay: %s\n", changed.c_str());
  }
  return why_not.empty() ? EXIT_COUNTEREXAMPLE : EXIT_NOT_REPRODUCED;
}

static CommandRun define_replay(CLI::App& cmd) {
  auto file = std::make_shared<std::string>(), specs = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false), raw = std::make_shared<bool>(false), chains = std::make_shared<bool>(false);
  cmd.add_option("TRACE_FILE", *file, "a trace written by run --trace or all --traces (JSON)")
      ->required()
      ->type_name("");
  cmd.add_flag("--json", *json, "print one JSON object: run's fields plus failing_step and reproduced");
  cmd.add_flag("--raw", *raw, "keep Relacy's internal event rows in the readable trace");
  cmd.add_flag("--chains", *chains, "show each row's kernel call chain in the readable trace's function column");
  cmd.add_option("--specs", *specs,
                 "check the explored batch states against the spec files in DIR, as all --specs DIR\n"
                 "did when it recorded the trace (default: proofs/specs of this checkout)")
      ->type_name("DIR");
  return [file, specs, json, raw, chains] { return replay(*file, *specs, *json, *raw, *chains); };
}

static CommandRegistrar reg({"replay", "Re-run exactly the interleaving a trace file recorded.", &define_replay});
