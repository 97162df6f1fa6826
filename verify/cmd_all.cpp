// vmaverify all: every scenario, every mutant against its scenario, every proof.
#include <sys/stat.h>
#include <cstdio>
#include "verify/all.hpp"
#include "verify/cli.hpp"
#include "verify/json.hpp"
#include "verify/junit.hpp"
#include "verify/trace.hpp"

static std::string sanitize(std::string s) {
  for (char& c : s)
    if (!isalnum((unsigned char)c) && c != '_' && c != '-' && c != '.') c = '_';
  return s;
}

static int cmd_all(const std::vector<std::string>& in) {
  Args a;
  std::string err;
  if (!parse_args(in, {"--junit", "--traces"}, {"--json", "--quiet"}, &a, &err)) return usage_error("all: " + err);
  if (!a.positional.empty()) return usage_error("all: unexpected argument '" + a.positional[0] + "'");
  const bool json = a.has("--json"), quiet = a.has("--quiet");
  const std::string trace_dir = a.get("--traces", "vmaverify-traces");
  int unexpected = 0, incomplete = 0, total = 0;
  std::vector<Outcome> outcomes;
  run_all_checks(!quiet, [&](const Outcome& o) {
    total++;
    outcomes.push_back(o);
    std::string trace_file;
    if (!o.as_expected) {
      (o.r.result == "incomplete" ? incomplete : unexpected)++;
      if (!o.r.state.empty()) {
        mkdir(trace_dir.c_str(), 0777);
        trace_file = trace_dir + "/" + sanitize(o.r.scenario + (o.r.mutant == "none" ? "" : "." + o.r.mutant)) + ".json";
        std::string e;
        if (!write_trace(trace_file, o.r, &e)) std::fprintf(stderr, "vmaverify all: %s\n", e.c_str());
      }
    }
    if (json) {
      std::string j = result_json(o.r);
      j.pop_back();
      j += ", \"expected\": " + json_quote(o.expected) + ", \"as_expected\": " + (o.as_expected ? "true" : "false");
      if (!trace_file.empty()) j += ", \"trace\": " + json_quote(trace_file);
      std::printf("%s}\n", j.c_str());
    } else {
      std::printf("%s %s\n", o.as_expected ? "ok  " : "FAIL", result_text(o.r).c_str());
      if (!o.as_expected) std::printf("  expected %s%s\n", o.expected.c_str(),
                                      trace_file.empty() ? "" : ("; trace in " + trace_file).c_str());
    }
    std::fflush(stdout);
  });
  if (a.has("--junit") && !write_junit(a.get("--junit"), outcomes, &err)) return usage_error("all: " + err);
  if (!json) std::printf("%d checked, %d as expected, %d unexpected, %d incomplete\n", total,
                         total - unexpected - incomplete, unexpected, incomplete);
  return unexpected ? EXIT_COUNTEREXAMPLE : incomplete ? EXIT_INCOMPLETE : EXIT_VERIFIED;
}

static CommandRegistrar reg({"all", "all [--junit FILE] [--traces DIR] [--json] [--quiet]", &cmd_all});
