// vmaverify replay: re-run exactly the interleaving a trace file recorded.
#include <cstdio>
#include "model/mutants.hpp"
#include "verify/cli.hpp"
#include "verify/scenario.hpp"
#include "verify/trace.hpp"

static int cmd_replay(const std::vector<std::string>& in) {
  Args a;
  std::string err;
  if (!parse_args(in, {}, {"--json"}, &a, &err)) return usage_error("replay: " + err);
  if (a.positional.size() != 1) return usage_error("replay: expected one TRACE_FILE");
  RunResult saved;
  if (!read_trace(a.positional[0], &saved, &err)) return usage_error("replay: " + err);
  const Scenario* s = find_scenario(saved.scenario);
  if (!s) return usage_error("replay: " + a.positional[0] + ": unknown scenario '" + saved.scenario + "'");
  if (saved.mutant != "none" && !find_mutant(saved.mutant))
    return usage_error("replay: " + a.positional[0] + ": unknown mutant '" + saved.mutant + "'");
  RunOptions o;
  o.mutant = saved.mutant;
  if (!SearchSpec::parse(saved.search, &o.search, &err)) return usage_error("replay: " + a.positional[0] + ": " + err);
  o.initial_state = saved.state;
  o.unbatched = saved.variant == "unbatched";
  o.budget = 1;  // exactly the recorded interleaving
  RunResult r = run_scenario(*s, o, true);
  bool same = r.result == "counterexample" && r.kind == saved.kind && r.failing_step == saved.failing_step;
  if (a.has("--json")) {
    std::string j = result_json(r);
    j.pop_back();
    std::printf("%s, \"failing_step\": %d, \"reproduced\": %s}\n", j.c_str(), r.failing_step, same ? "true" : "false");
  } else {
    std::printf("%s\n%s", result_text(r).c_str(), r.result == "counterexample" ? trace_text(r).c_str() : "");
    std::printf("replay: %s\n", same ? "reproduced the recorded failure (same kind, same failing step)"
                                     : ("did NOT reproduce the recorded " + saved.kind + " at step " +
                                        std::to_string(saved.failing_step)).c_str());
  }
  return same ? EXIT_COUNTEREXAMPLE : EXIT_VERIFIED;
}

static CommandRegistrar reg({"replay", "replay TRACE_FILE [--json]", &cmd_replay});
