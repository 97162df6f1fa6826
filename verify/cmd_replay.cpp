// vmaverify replay: re-run exactly the interleaving a trace file recorded.
#include <cstdio>
#include <memory>
#include <CLI/CLI.hpp>
#include "model/mutants.hpp"
#include "verify/cli.hpp"
#include "verify/json_out.hpp"
#include "verify/result_output.hpp"
#include "verify/scenario.hpp"
#include "verify/trace.hpp"

static int replay(const std::string& file, bool json) {
  RunResult saved;
  std::string err;
  if (!read_trace(file, &saved, &err)) return usage_error("replay: " + err);
  const Scenario* s = find_scenario(saved.scenario);
  if (!s) return usage_error("replay: " + file + ": unknown scenario " + shown(saved.scenario));
  if (saved.mutant != "none" && !find_mutant(saved.mutant))
    return usage_error("replay: " + file + ": unknown mutant " + shown(saved.mutant));
  RunOptions o;
  o.mutant = saved.mutant;
  if (!SearchSpec::parse(saved.search, &o.search, &err))
    return usage_error("replay: " + file + ": search " + shown(saved.search) + " is not full, bound:N or random:N");
  if (saved.variant != "batched" && saved.variant != "unbatched")
    return usage_error("replay: " + file + ": variant " + shown(saved.variant) + " is not batched or unbatched");
  if (saved.kind.empty() || saved.kind.size() > 100)
    return usage_error("replay: " + file + ": kind " + shown(saved.kind) + " is not a failure kind");
  // The state is checked against the scenario's thread count where that is known, in the
  // driver, before Relacy reads it.
  if (saved.state.empty()) return usage_error("replay: " + file + ": state is empty: nothing to replay");
  o.initial_state = saved.state;
  o.unbatched = saved.variant == "unbatched";
  o.budget = 1;  // exactly the recorded interleaving
  RunResult r = run_scenario(*s, o, true);
  if (r.result == "error") return usage_error("replay: " + file + ": " + r.message);
  bool same = r.result == "counterexample" && r.kind == saved.kind && r.failing_step == saved.failing_step;
  if (json) {
    Json j = result_json(r);
    j["failing_step"] = r.failing_step;
    j["reproduced"] = same;
    std::printf("%s\n", json_line(j).c_str());
  } else {
    std::printf("%s\n%s", result_text(r).c_str(), r.result == "counterexample" ? trace_text(r).c_str() : "");
    std::printf("replay: %s\n", same ? "reproduced the recorded failure (same kind, same failing step)"
                                     : ("did NOT reproduce the recorded " + saved.kind + " at step " +
                                        std::to_string(saved.failing_step)).c_str());
  }
  return same ? EXIT_COUNTEREXAMPLE : EXIT_VERIFIED;
}

static CommandRun define_replay(CLI::App& cmd) {
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd.add_option("TRACE_FILE", *file, "a trace written by run --trace or all --traces (JSON)")
      ->required()
      ->type_name("");
  cmd.add_flag("--json", *json, "print one JSON object: run's fields plus failing_step and reproduced");
  return [file, json] { return replay(*file, *json); };
}

static CommandRegistrar reg({"replay", "Re-run exactly the interleaving a trace file recorded.", &define_replay});
