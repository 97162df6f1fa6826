// vmaverify coverage: run every check of `all` in a gcov-instrumented build, then report, per
// modelled kernel function, the lines and branches that no scenario or mutant run reached.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include "verify/all.hpp"
#include "verify/check_filter.hpp"
#include "verify/cli.hpp"
#include "verify/coverage.hpp"

extern char** environ;

#ifdef VMAVERIFY_COVERAGE_BUILD
extern "C" void __gcov_dump(void);
extern "C" void __gcov_reset(void);
#endif

namespace fs = std::filesystem;

struct CoverageArgs {
  std::string exceptions, html;
  CheckFilter filter;
  bool quiet = false;
};

#ifdef VMAVERIFY_COVERAGE_BUILD
// gcovr over the build's counters; its own output goes to LOG. "" on success, else why not.
static std::string run_gcovr(const std::string& src, const std::string& bin, const std::string& json_out,
                             const std::string& html, const std::string& log) {
  std::vector<std::string> args = {"gcovr", "--root", src, "--object-directory", bin, "--filter", "model/",
                                   "--exclude-unreachable-branches", "--exclude-throw-branches",
                                   // the checker's own checks are not kernel branches
                                   "--exclude-lines-by-pattern", ".*VM_CHECK\\(.*", "--json", json_out};
  if (!html.empty()) {
    fs::create_directories(html);
    args.insert(args.end(), {"--html-details", html + "/index.html"});
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, "gcovr", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return "cannot run gcovr (apt-get install gcovr): " + std::string(std::strerror(rc));
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "gcovr failed; its output is in " + log;
  return "";
}
#endif

static int coverage(const CoverageArgs& a) {
#ifndef VMAVERIFY_COVERAGE_BUILD
  (void)a;
  return usage_error(
      "coverage: this vmaverify is not built for coverage; build one with `cmake --preset coverage && cmake --build "
      "--preset coverage` and run build-coverage/vmaverify coverage");
#else
  const std::string src = VMAVERIFY_SOURCE_DIR, bin = VMAVERIFY_BINARY_DIR;
  std::string exceptions_file = a.exceptions.empty() ? src + "/verify/coverage_exceptions.txt" : a.exceptions;
  std::vector<CoverageException> exceptions;
  std::string err = a.filter.unmatched(all_check_ids());
  if (!err.empty()) return usage_error("coverage: " + err);
  if (!read_coverage_exceptions(exceptions_file, &exceptions, &err)) return usage_error("coverage: " + err);
  // Counters of earlier runs would count as reached: start from none.
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(bin, ec); !ec && it != fs::recursive_directory_iterator(); ++it)
    if (it->path().extension() == ".gcda") fs::remove(it->path(), ec);
  __gcov_reset();
  int total = 0, unexpected = 0;
  run_all_checks(!a.quiet, [&](const Outcome& o) {
    total++;
    unexpected += !o.as_expected;
    if (!o.as_expected) std::printf("FAIL %s %s: expected %s\n", o.r.scenario.c_str(), o.r.mutant.c_str(), o.expected.c_str());
  }, [&a](const std::string& id) { return a.filter.selects(id); });
  __gcov_dump();
  const std::string json_out = bin + "/coverage.json", log = bin + "/gcovr.log";
  err = run_gcovr(src, bin, json_out, a.html, log);
  if (!err.empty()) return usage_error("coverage: " + err);
  nlohmann::json report;
  try {
    std::ifstream in(json_out);
    report = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return usage_error("coverage: " + json_out + ": not gcovr's JSON: " + e.what());
  }
  CoverageReport r;
  if (!coverage_report(report, src, &exceptions, &r, &err)) return usage_error("coverage: " + err);
  const bool subset = !a.filter.only.empty() || !a.filter.skip.empty();
  std::printf("coverage of the modelled kernel functions over %d checks%s (%d unexpected):\n", total,
              subset ? " (a subset: --only/--skip)" : "", unexpected);
  std::fputs(coverage_text(r, exceptions).c_str(), stdout);
  if (!a.html.empty()) std::printf("HTML report: %s/index.html\n", a.html.c_str());
  bool stale = std::any_of(exceptions.begin(), exceptions.end(), [](const CoverageException& x) { return !x.used; });
  return unexpected || r.unexcepted_gaps() || stale ? EXIT_COUNTEREXAMPLE : EXIT_VERIFIED;
#endif
}

static CommandRun define_coverage(CLI::App& cmd) {
  auto a = std::make_shared<CoverageArgs>();
  cmd.add_option("--exceptions", a->exceptions,
                 "the branches no scenario can reach, each with its reason\n(default: verify/coverage_exceptions.txt)")
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
