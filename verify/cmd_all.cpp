// vmaverify all: every scenario, every mutant against its scenario, every proof.
#include <sys/stat.h>
#include <cstdio>
#include <memory>
#include <CLI/CLI.hpp>
#include "verify/all.hpp"
#include "verify/cli.hpp"
#include "verify/json_out.hpp"
#include "verify/junit.hpp"
#include "verify/result_output.hpp"
#include "verify/trace.hpp"

static std::string sanitize(std::string s) {
  for (char& c : s)
    if (!isalnum((unsigned char)c) && c != '_' && c != '-' && c != '.') c = '_';
  return s;
}

struct AllArgs {
  std::string junit, traces = "vmaverify-traces";
  bool json = false, quiet = false;
};

static int all(const AllArgs& a) {
  const bool json = a.json, quiet = a.quiet;
  const std::string& trace_dir = a.traces;
  std::string err;
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
      std::printf("%s\n", json_line(outcome_json(o, trace_file)).c_str());
    } else {
      std::printf("%s %s\n", o.as_expected ? "ok  " : "FAIL", result_text(o.r).c_str());
      if (!o.as_expected) std::printf("  expected %s%s\n", o.expected.c_str(),
                                      trace_file.empty() ? "" : ("; trace in " + trace_file).c_str());
    }
    std::fflush(stdout);
  });
  if (!a.junit.empty() && !write_junit(a.junit, outcomes, &err)) return usage_error("all: " + err);
  if (!json) std::printf("%d checked, %d as expected, %d unexpected, %d incomplete\n", total,
                         total - unexpected - incomplete, unexpected, incomplete);
  return unexpected ? EXIT_COUNTEREXAMPLE : incomplete ? EXIT_INCOMPLETE : EXIT_VERIFIED;
}

static CommandRun define_all(CLI::App& cmd) {
  auto a = std::make_shared<AllArgs>();
  cmd.add_option("--junit", a->junit, "write JUnit XML: a test case per scenario, baseline, mutant and spec")
      ->type_name("FILE");
  cmd.add_option("--traces", a->traces, "directory for the traces of unexpected failures")
      ->type_name("DIR")
      ->capture_default_str();
  cmd.add_flag("--json", a->json, "print one JSON object per check: run's fields plus expected,\nas_expected and trace");
  cmd.add_flag("--quiet", a->quiet, "no progress of long searches on stderr");
  return [a] { return all(*a); };
}

static CommandRegistrar reg({"all", "Every scenario, baseline, mutant and proof; exit 0 only if all are as expected.",
                             &define_all});
