// vmaverify run: explore one scenario, on the correct model or with one mutant.
#include <cstdio>
#include <memory>
#include <CLI/CLI.hpp>
#include "model/mutants.hpp"
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"
#include "verify/search/minimize.hpp"
#include "verify/report/result_output.hpp"
#include "verify/search/scenario.hpp"
#include "verify/search/shards.hpp"
#include "verify/report/trace.hpp"

namespace {

// Enough for bounds 0 to 2 of every scenario's failures; seconds, not minutes.
constexpr long long kDefaultMinimizeBudget = 200000;

struct RunArgs {
  std::string scenario, mutant = "none", search, trace, shard;
  long long budget = 0;  // signed, so that CLI11 rejects "-1" instead of wrapping it
  long long minimize_budget = kDefaultMinimizeBudget;
  long long jobs = 1;
  bool steal = false;
  bool unbatched = false, json = false, quiet = false, raw = false, chains = false, reduce = false;
};

int run(const CLI::App& cmd, const RunArgs& a) {
  const Scenario* s = find_scenario(a.scenario);
  RunOptions o;
  o.mutant = a.mutant;
  const bool search_given = cmd.count("--search") > 0;
  std::string err;
  if (search_given) SearchSpec::parse(a.search, &o.search, &err);  // validated while parsing
  o.budget = (uint64_t)a.budget;
  o.progress = !a.quiet;
  o.unbatched = a.unbatched;
  o.reduce = a.reduce;
  if (!search_given) SearchSpec::parse(s->search, &o.search, nullptr);
  if (!a.shard.empty() && !parse_shard(a.shard, &o.shard_index, &o.shard_count, &err)) return usage_error("run: --shard: " + err);
  o.sharded = !a.shard.empty();
  if ((o.shard_count > 1 || a.jobs > 1 || a.reduce) && o.search.kind != SearchSpec::Kind::full)
    return usage_error("run: --shard, --jobs and --reduce need a full search, not " + o.search.str());
  if (cmd.count("--shard") && cmd.count("--jobs")) return usage_error("run: --shard and --jobs exclude each other");
  // A reduced search split into static shards explores more in each shard than the whole search
  // does in one process (verify/search/shard_scheduler.hpp). So --jobs runs it whole, and says
  // so, unless --steal asks for work-stealing (verify/search/work_stealing.hpp), which gives the
  // same verdict but today explores more in all than one process (bench/README.md); --shard
  // still splits it, for a matrix that wants the slices.
  const bool reduced = o.reduce || o.search.reduce;
  const bool run_whole = a.jobs > 1 && reduced && !a.steal;
  if (a.steal && (a.jobs < 2 || !reduced)) return usage_error("run: --steal needs --jobs N (N > 1) and a reduced search");
  if (run_whole && !a.quiet)
    std::fprintf(stderr, "vmaverify: run: --jobs %lld: a reduced search runs in one process (its shards would each "
                 "explore more than the whole search; --steal shares it by work-stealing)\n", a.jobs);
  if (a.steal) o.steal_jobs = (unsigned)a.jobs;
  RunResult r = a.jobs > 1 && !reduced ? run_jobs(*s, o, (unsigned)a.jobs) : run_scenario(*s, o, true);
  if (run_whole) r.stats["jobs asked, run in one process (reduced)"] = (long)a.jobs;
  if (r.result == "error") return usage_error("run: " + r.message);
  std::string minimized;
  if (r.result == "counterexample" && a.minimize_budget > 0) {
    Minimized m = minimize_counterexample(*s, o, r, (uint64_t)a.minimize_budget);
    const RunResult found = r;
    r = m.result;
    // A shard stays the shard of the search that found it, not of the bounded one that minimised it.
    r.shard = found.shard, r.shard_search = found.shard_search, r.budget = found.budget;
    r.fingerprint = found.fingerprint;
    minimized = m.note;
  }
  // The verdict stands whatever happens to the trace: a failed write is said, not returned.
  if (!a.trace.empty() && r.result == "counterexample" && !write_trace(a.trace, r, &err, a.raw, a.chains))
    std::fprintf(stderr, "vmaverify: run: counterexample found, but the trace was not written: %s\n", err.c_str());
  if (a.json) {
    std::printf("%s\n", json_line(result_json(r)).c_str());
  } else {
    std::printf("%s\n", result_text(r).c_str());
    if (!minimized.empty()) std::printf("  %s\n", minimized.c_str());
    if (r.result == "counterexample" && !a.quiet) std::printf("%s", trace_text(r, a.raw, a.chains).c_str());
  }
  return exit_status(r);
}

CommandRun define_run(CLI::App& cmd) {
  auto a = std::make_shared<RunArgs>();
  only_known(cmd.add_option("SCENARIO", a->scenario, "the scenario to explore (see vmaverify list)")
                 ->required()
                 ->type_name(""),
             "scenario", [](const std::string& n) { return find_scenario(n) != nullptr; });
  only_known(cmd.add_option("--mutant", a->mutant, "switch one seeded bug on (see vmaverify list)")
                 ->type_name("NAME")
                 ->capture_default_str(),
             "mutant", [](const std::string& n) { return n == "none" || find_mutant(n) != nullptr; });
  cmd.add_option("--search", a->search,
                 "full: every interleaving; bound:N: those with at most N preemptions\n"
                 "(N >= 0); random:N: N random ones (never verified; N > 0).\n"
                 "Default: the scenario's own (see vmaverify list)")
      ->type_name("full|bound:N|random:N")
      ->check(search_form());
  cmd.add_option("--budget", a->budget,
                 "most iterations (interleavings) to explore, an integer in [1, 10^15);\n"
                 "if it runs out first the result is incomplete (exit 3). Default: no limit")
      ->type_name("N")
      ->check(CLI::Range(1LL, 999999999999999LL).description(""));
  cmd.add_option("--minimize-budget", a->minimize_budget,
                 "after a counterexample, most iterations to spend looking for one of the same\n"
                 "kind with fewer preemptions (bound:0, bound:1, ...); 0: keep the first found")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(0LL, 999999999999999LL).description(""));
  cmd.add_option("--jobs", a->jobs,
                 "split the full search into N shards, each explored by a local process,\n"
                 "and merge their results (a reduced search runs in one process: its shards\n"
                 "would each explore more than the whole; see --steal). Default: 1")
      ->type_name("N")
      ->check(CLI::Range(1LL, (long long)kMaxShards).description(""));
  cmd.add_flag("--steal", a->steal,
               "with --jobs N on a reduced search: share it among N processes by work-stealing\n"
               "(the same verdict; today more iterations in all than one process)");
  cmd.add_option("--shard", a->shard,
                 "explore only shard I of N of the full search (0 <= I < N <= 4096);\n"
                 "vmaverify merge combines the N results")
      ->type_name("I/N")
      ->check(CLI::Validator(
          [](std::string& v) {
            unsigned i, n;
            std::string err;
            return parse_shard(v, &i, &n, &err) ? std::string() : err;
          },
          "", "shard"));
  cmd.add_flag("--reduce", a->reduce, "full search: skip interleavings equivalent to explored ones (source-DPOR with sleep sets)");
  cmd.add_flag("--unbatched", a->unbatched, "run the pre-patch free_pgtables (one unlink_file_vma per VMA)");
  cmd.add_option("--trace", a->trace, "on a counterexample, write FILE (JSON, for replay) and FILE.txt")
      ->type_name("FILE");
  cmd.add_flag("--raw", a->raw, "keep Relacy's internal event rows in the readable trace");
  cmd.add_flag("--chains", a->chains, "show each row's kernel call chain in the readable trace's function column");
  cmd.add_flag("--json", a->json, "print one JSON object (schema in README)");
  cmd.add_flag("--quiet", a->quiet, "no progress on stderr, no counterexample trace on stdout");
  const CLI::App* self = &cmd;
  return [self, a] { return run(*self, *a); };
}

}  // namespace

static CommandRegistrar reg({"run", "Explore one scenario under its own search or the one given.", &define_run});
