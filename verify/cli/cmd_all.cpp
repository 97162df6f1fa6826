// vmaverify all: every scenario, every mutant against its scenario, every proof.
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <CLI/CLI.hpp>
#include "proofs/prover.hpp"
#include "proofs/spec_file.hpp"
#include "verify/checks/all.hpp"
#include "verify/checks/check_filter.hpp"
#include "verify/checks/check_durations.hpp"
#include "verify/coverage/coverage_measure.hpp"
#include "verify/cli/cli.hpp"
#include "verify/report/html_report.hpp"
#include "verify/report/json_out.hpp"
#include "verify/report/junit.hpp"
#include "verify/report/safe_write.hpp"
#include "verify/report/result_output.hpp"
#include "verify/report/trace.hpp"

static std::string sanitize(std::string s) {
  for (char& c : s)
    if (!isalnum((unsigned char)c) && c != '_' && c != '-' && c != '.') c = '_';
  return s;
}

struct AllArgs {
  std::string junit, summary, specs, html, traces = "vmaverify-traces";
  CheckFilter filter;
  bool json = false, quiet = false;
};

// The output paths, checked before a minute of checking: "" when usable, else why not.
static std::string unwritable_file(const char* option, const std::string& file, bool) {
  const std::string why = unwritable_path(file);
  return why.empty() ? "" : std::string(option) + " " + why;
}

static int all(const AllArgs& a) {
  const bool json = a.json, quiet = a.quiet;
  const std::string& trace_dir = a.traces;
  if (!a.specs.empty()) set_specs_dir(a.specs);
  if (default_spec_files().empty()) return usage_error("all: no spec files found in " + specs_dir());
  // Every spec parses, before a minute of checking: a malformed one is bad input (exit 2), as
  // for prove, whether or not a selected check reads it.
  for (const std::string& f : default_spec_files()) {
    Spec spec;
    std::string why;
    z3::context c;
    z3::expr e(c);
    if (!load_spec(f, &spec, &why) || !parse_spec(c, spec, Vocabulary(c, spec.is_trace()), &e, &why))
      return usage_error("all: " + why);
  }
  std::string err = unusable_output_dir("--traces", trace_dir);
  if (err.empty() && !a.junit.empty()) err = unwritable_file("--junit", a.junit, false);
  if (err.empty() && !a.summary.empty()) err = unwritable_file("--summary", a.summary, true);
  if (err.empty() && !a.html.empty() && !(err = html_report_dir_problem(a.html)).empty()) err = "--html " + err;
  if (err.empty()) err = a.filter.unmatched(all_check_ids());
  std::vector<CoverageException> exceptions;
  if (err.empty() && coverage_measured() && !read_coverage_exceptions(default_coverage_exceptions(), &exceptions, &err))
    err = "coverage: " + err;
  if (!err.empty()) return usage_error("all: " + err);
  coverage_reset();
  int unexpected = 0, incomplete = 0, total = 0, selected = 0, done_checks = 0;
  std::vector<std::string> selected_ids;
  for (const std::string& id : all_check_ids())
    if (a.filter.selects(id)) selected++, selected_ids.push_back(id);
  CheckDurations durations(default_check_durations_file());
  std::vector<Outcome> outcomes;
  const auto t0 = std::chrono::steady_clock::now();
  run_all_checks(!quiet, [&](const Outcome& checked) {
    Outcome o = checked;
    total++;
    if (!o.as_expected) {
      (o.r.result == "incomplete" ? incomplete : unexpected)++;
      if (!o.r.state.empty()) {
        o.trace = trace_dir + "/" +
                  sanitize(o.r.scenario + (o.r.mutant == "none" ? "" : "." + o.r.mutant) +
                           (o.r.variant == "unbatched" ? ".unbatched" : "")) +
                  ".json";
        std::string e;
        if (!write_trace(o.trace, o.r, &e)) std::fprintf(stderr, "vmaverify all: %s\n", e.c_str());
      }
    }
    outcomes.push_back(o);
    if (json) {
      std::printf("%s\n", json_line(outcome_json(o, o.trace)).c_str());
    } else {
      std::printf("%s %s\n", o.as_expected ? "ok  " : "FAIL", result_text(o.r).c_str());
      if (!o.as_expected) std::printf("  expected %s%s\n", o.expected.c_str(),
                                      o.trace.empty() ? "" : ("; trace in " + o.trace).c_str());
    }
    std::fflush(stdout);
  }, [&a](const std::string& id) { return a.filter.selects(id); }, [&](const std::string& id, double secs) {
    // Progress: checks done, and the time the rest should take, each as long as it took last
    // time (verify/checks/check_durations.hpp), on the processes all runs at a time.
    durations.finished(id, secs);
    done_checks++;
    if (!quiet) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "all: %d/%d checks, %.0f s, about %.0f s left\n", done_checks, selected, s,
                   durations.left(selected_ids, all_jobs()));
    }
  });
  std::string why;
  if (!durations.save(&why)) std::fprintf(stderr, "vmaverify all: check durations not kept: %s\n", why.c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!a.junit.empty() && !write_junit(a.junit, outcomes, &err)) return usage_error("all: " + err);
  if (!a.summary.empty() && !write_markdown_summary(a.summary, outcomes, &err)) return usage_error("all: " + err);
  if (!a.html.empty() && !write_html_report(a.html, "vmaverify all", outcomes, &err)) return usage_error("all: --html " + err);
  // The branches of the modelled kernel functions no check reached (coverage builds only): an
  // unreached branch outside the exceptions file fails `all` like an unexpected result.
  const bool subset = !a.filter.only.empty() || !a.filter.skip.empty();
  if (coverage_measured()) {
    CoverageReport cov;
    err = coverage_collect("", &exceptions, &cov);
    if (!err.empty()) return usage_error("all: coverage: " + err);
    const bool stale = std::any_of(exceptions.begin(), exceptions.end(), [](const CoverageException& x) { return !x.used; });
    const bool gaps = cov.unexcepted_gaps() || stale;
    if (!json) std::printf("coverage of the modelled kernel functions%s:\n%s", subset ? " (a subset: --only/--skip, not judged)" : "",
                           coverage_summary_text(cov, exceptions).c_str());
    if (gaps && !subset) unexpected++;
  }
  if (json)
    std::printf("%s\n", json_line(summary_json(total, unexpected, incomplete, seconds)).c_str());
  else
    std::printf("%d checked, %d as expected, %d unexpected, %d incomplete\n", total, total - unexpected - incomplete,
                unexpected, incomplete);
  return unexpected ? EXIT_COUNTEREXAMPLE : incomplete ? EXIT_INCOMPLETE : EXIT_VERIFIED;
}

static CommandRun define_all(CLI::App& cmd) {
  auto a = std::make_shared<AllArgs>();
  cmd.add_option("--junit", a->junit, "write JUnit XML: a test case per scenario, baseline, mutant and spec")
      ->type_name("FILE");
  cmd.add_option("--traces", a->traces, "directory for the traces of unexpected failures")
      ->type_name("DIR")
      ->capture_default_str();
  cmd.add_option("--summary", a->summary, "append a Markdown summary of the results (e.g. $GITHUB_STEP_SUMMARY)")
      ->type_name("FILE");
  cmd.add_option("--html", a->html,
                 "write an HTML report to DIR/index.html: the results, a swimlane per counterexample\n"
                 "(the mutants' too), the model sources it links to in DIR/src/")
      ->type_name("DIR");
  cmd.add_option("--specs", a->specs, "directory of the spec files (default: proofs/specs of this checkout)")
      ->type_name("DIR");
  cmd.add_option("--only", a->filter.only,
                 "run only the checks a shell glob PATTERN selects (repeatable): a check is\n"
                 "GROUP/SCENARIO[/MUTANT]; the pattern matches the whole name or one part")
      ->type_name("PATTERN")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--skip", a->filter.skip, "leave out the checks PATTERN selects (repeatable; as --only)")
      ->type_name("PATTERN")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_flag("--json", a->json, "print one JSON object per check: run's fields plus group, expected,\nas_expected and trace; then one summary object (group \"summary\")");
  cmd.add_flag("--quiet", a->quiet, "no progress of long searches on stderr");
  return [a] { return all(*a); };
}

static CommandRegistrar reg({"all", "Every scenario, baseline, mutant and proof; exit 0 only if all are as expected.",
                             &define_all});
