// vmaverify run: explore one scenario, on the correct model or with one mutant.
#include <cstdio>
#include "model/mutants.hpp"
#include "verify/cli.hpp"
#include "verify/scenario.hpp"
#include "verify/trace.hpp"

static int cmd_run(const std::vector<std::string>& in) {
  Args a;
  std::string err;
  if (!parse_args(in, {"--mutant", "--search", "--budget", "--trace"}, {"--json", "--quiet", "--unbatched"}, &a, &err))
    return usage_error("run: " + err);
  if (a.positional.size() != 1) return usage_error("run: expected one SCENARIO (see vmaverify list)");
  const Scenario* s = find_scenario(a.positional[0]);
  if (!s) return usage_error("run: unknown scenario '" + a.positional[0] + "' (see vmaverify list)");
  RunOptions o;
  o.mutant = a.get("--mutant", "none");
  if (o.mutant != "none" && !find_mutant(o.mutant))
    return usage_error("run: unknown mutant '" + o.mutant + "' (see vmaverify list)");
  if (a.has("--search") && !SearchSpec::parse(a.get("--search"), &o.search, &err)) return usage_error("run: " + err);
  if (a.has("--budget")) {
    std::string b = a.get("--budget");
    if (b.empty() || b.size() > 15 || b.find_first_not_of("0123456789") != std::string::npos || std::stoull(b) == 0)
      return usage_error("run: bad --budget '" + b + "': expected a positive number of iterations");
    o.budget = std::stoull(b);
  }
  o.progress = !a.has("--quiet");
  o.unbatched = a.has("--unbatched");
  RunResult r = run_scenario(*s, o, a.has("--search"));
  if (a.has("--trace") && r.result == "counterexample") {
    if (!write_trace(a.get("--trace"), r, &err)) return usage_error("run: " + err);
  }
  if (a.has("--json")) {
    std::printf("%s\n", result_json(r).c_str());
  } else {
    std::printf("%s\n", result_text(r).c_str());
    if (r.result == "counterexample" && !a.has("--quiet")) std::printf("%s", trace_text(r).c_str());
  }
  return exit_status(r);
}

static CommandRegistrar reg({"run",
                             "run SCENARIO [--mutant NAME] [--search full|bound:N|random:N] [--budget N] "
                             "[--unbatched] [--trace FILE] [--json] [--quiet]",
                             &cmd_run});
