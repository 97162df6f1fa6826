// vmaverify coverage: run every check of `all` in a gcov-instrumented build, then report, per
// modelled kernel function, the lines and branches that no scenario or mutant run reached.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <CLI/CLI.hpp>
#include "verify/checks/all.hpp"
#include "verify/checks/check_filter.hpp"
#include "verify/cli/cli.hpp"
#include "verify/coverage/coverage_measure.hpp"

struct CoverageArgs {
  std::string exceptions, html;
  CheckFilter filter;
  bool quiet = false;
};

static int coverage(const CoverageArgs& a) {
  if (!coverage_measured()) return usage_error("coverage: " + coverage_collect("", nullptr, nullptr));
  std::string exceptions_file = a.exceptions.empty() ? default_coverage_exceptions() : a.exceptions;
  std::vector<CoverageException> exceptions;
  std::string err = a.filter.unmatched(all_check_ids());
  if (!err.empty()) return usage_error("coverage: " + err);
  if (!read_coverage_exceptions(exceptions_file, &exceptions, &err)) return usage_error("coverage: " + err);
  coverage_reset();
  int total = 0, unexpected = 0;
  run_all_checks(!a.quiet, [&](const Outcome& o) {
    total++;
    unexpected += !o.as_expected;
    if (!o.as_expected) std::printf("FAIL %s %s: expected %s\n", o.r.scenario.c_str(), o.r.mutant.c_str(), o.expected.c_str());
  }, [&a](const std::string& id) { return a.filter.selects(id); });
  CoverageReport r;
  err = coverage_collect(a.html, &exceptions, &r);
  if (!err.empty()) return usage_error("coverage: " + err);
  const bool subset = !a.filter.only.empty() || !a.filter.skip.empty();
  std::printf("coverage of the modelled kernel functions over %d checks%s (%d unexpected):\n", total,
              subset ? " (a subset: --only/--skip)" : "", unexpected);
  std::fputs(coverage_text(r, exceptions).c_str(), stdout);
  if (!a.html.empty()) std::printf("HTML report: %s/index.html\n", a.html.c_str());
  bool stale = std::any_of(exceptions.begin(), exceptions.end(), [](const CoverageException& x) { return !x.used; });
  return unexpected || r.unexcepted_gaps() || stale ? EXIT_COUNTEREXAMPLE : EXIT_VERIFIED;
}

static CommandRun define_coverage(CLI::App& cmd) {
  auto a = std::make_shared<CoverageArgs>();
  cmd.add_option("--exceptions", a->exceptions,
                 "the branches no scenario can reach, each with its reason\n(default: verify/coverage/coverage_exceptions.txt)")
      ->type_name("FILE");
  cmd.add_option("--html", a->html, "also write gcovr's annotated-source HTML report here")->type_name("DIR");
  cmd.add_option("--only", a->filter.only, "run only the checks PATTERN selects, as all --only (repeatable)")
      ->type_name("PATTERN");
  cmd.add_option("--skip", a->filter.skip, "leave out the checks PATTERN selects, as all --skip (repeatable)")
      ->type_name("PATTERN");
  cmd.add_flag("--quiet", a->quiet, "no progress of long searches on stderr");
  return [a] { return coverage(*a); };
}

static CommandRegistrar reg({"coverage",
                             "Branch coverage of the modelled kernel functions over every check (coverage build only); "
                             "exit 1 on a branch no run reached that is not in the exceptions file.",
                             &define_coverage});
