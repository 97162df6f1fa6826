#include "verify/report/result_output.hpp"

#include <cstdio>
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"

int exit_status(const RunResult& r) {
  if (r.result == "verified" || r.result == "proved") return EXIT_VERIFIED;
  if (r.result == "incomplete") return EXIT_INCOMPLETE;
  if (r.result == "error") return EXIT_USAGE;  // bad input met during the run (a malformed spec)
  return EXIT_COUNTEREXAMPLE;
}

std::string result_text(const RunResult& r) {
  char figures[96];
  std::snprintf(figures, sizeof figures, "%llu iterations, %.2f s", (unsigned long long)r.iterations, r.seconds);
  std::string s = r.scenario + (r.mutant == "none" ? "" : " [mutant " + r.mutant + "]") +
                  (r.variant == "unbatched" ? " [unbatched baseline]" : r.variant == "kernel" ? " [kernel code]" : "") + " (" + r.search +
                  ")" + (r.shard.empty() ? "" : " [shard " + r.shard + "]") + ": " + r.result + (r.kind.empty() ? "" : " (" + r.kind + ")") + ", " + figures;
  for (const auto& kv : r.stats) s += ", " + kv.first + "=" + std::to_string(kv.second);
  if (!r.message.empty()) s += "\n  " + r.message;
  return s;
}

Json result_json(const RunResult& r) {
  Json o = {{"scenario", r.scenario}, {"mutant", r.mutant},   {"variant", r.variant},
            {"search", r.search},     {"result", r.result},   {"kind", r.kind},
            {"message", r.message},   {"iterations", r.iterations}, {"seconds", r.seconds}};
  for (const auto& kv : r.stats) o[kv.first] = kv.second;
  if (!r.violated_spec.empty()) o["spec"] = r.violated_spec;
  if (!r.shard.empty()) {
    o["shard"] = r.shard;
    o["shard_search"] = r.shard_search;
    o["budget"] = r.budget;
    o["fingerprint"] = r.fingerprint;
  }
  return o;
}

Json outcome_json(const Outcome& o, const std::string& trace_file) {
  Json j = {{"group", o.group}};
  j.update(result_json(o.r));
  j["expected"] = o.expected;
  j["as_expected"] = o.as_expected;
  if (!trace_file.empty()) j["trace"] = trace_file;
  return j;
}

Json summary_json(int checked, int unexpected, int incomplete, double seconds) {
  return {{"group", "summary"},         {"checked", checked},       {"as_expected", checked - unexpected - incomplete},
          {"unexpected", unexpected},   {"incomplete", incomplete}, {"seconds", seconds}};
}
