// vmaverify kernel: the teardown scenarios on the kernel's own batch code and free_pgtables,
// and the rwsem scenarios on its kernel/locking/rwsem.c, taken from a kernel tree
// (verify/kernel/kernel_build.hpp), patched if asked. vmaverify builds the
// checker (vmaverify with the tree's code linked in) and hands over to it; the checker, which
// runs this same command, explores.
#include <signal.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <fstream>
#include <set>
#include <sstream>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include "model/batch_states.hpp"
#include "model/kernel_rwsem.hpp"
#include "model/kernel_source.hpp"
#include "model/mutants.hpp"
#include "proofs/prover.hpp"
#include "proofs/spec_file.hpp"
#include "verify/checks/all.hpp"
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"
#include "verify/report/junit.hpp"
#include "verify/kernel/kernel_build.hpp"
#include "verify/kernel/kernel_coverage.hpp"
#include "verify/kernel/kernel_pool.hpp"
#include "verify/kernel/kernel_sandbox.hpp"
#include "verify/report/result_output.hpp"
#include "verify/report/safe_write.hpp"
#include "verify/search/scenario.hpp"
#include "verify/report/trace.hpp"

namespace {

// Iterations per scenario unless --budget says otherwise: the two-task searches on the tree's
// code end well below it, the three-task ones and the two killable ones do not (tens of millions
// of iterations, many minutes each), so that `vmaverify kernel` with every scenario ends within
// minutes, those searches `incomplete` and said so. --budget 0 lifts it.
constexpr long long kDefaultKernelBudget = 5000000;
// A scenario's own search stopped by its budget has explored one corner of the tree: the full
// search goes depth first, so it never varied the choices near the root. The last fifth of the
// budget samples the whole tree at random instead (Relacy's random search), which reaches a
// bug that needs an early choice the corner never made. The verdict stays `incomplete` unless
// the sample fails; a failure is a counterexample like any other (random:N replays it).
constexpr long long kSampleShare = 5;
constexpr int kMaxKernelJobs = 64;

// Scenarios at once: one a core. Each search is single-threaded and stays whole: split into
// shards, a reduced search explores more in each shard than in one process (run --jobs).
int default_kernel_jobs() { return (int)std::max(1L, std::min(sysconf(_SC_NPROCESSORS_ONLN), (long)kMaxKernelJobs)); }

struct KernelArgs {
  std::string tree, trace, traces, junit, mutant = "none", search, exceptions;
  std::vector<std::string> patches, scenarios, configs;
  long long budget = kDefaultKernelBudget;  // signed, so that CLI11 rejects "-1" instead of wrapping it
  int jobs = default_kernel_jobs();          // scenarios searched at once, each in a child of its own
  bool agree = false, json = false, quiet = false, coverage = false, chains = false;
  std::string replay_state;  // internal: the contained child replays this one run of its scenario
  std::string replay_file;   // --replay: a kernel trace whose run to replay
};

// The scenarios whose threads run free_pgtables: those with a layout's lock figures.
bool is_teardown(const Scenario& s) { return s.figures != nullptr; }
// The scenarios of the faithful rw_semaphore alone, which the tree's rwsem.c runs.
bool is_rwsem(const Scenario& s) { return !is_teardown(s) && s.name.rfind("rwsem_", 0) == 0; }
// The rwsem scenarios whose tasks wait killably (down_read_killable, down_write_killable): a tree
// whose rwsem.c has no __down_read_killable / __down_write_killable cannot serve them.
bool needs_killable(const Scenario& s) { return s.name.rfind("rwsem_killable_", 0) == 0; }
bool tree_has_killable() { return g_kernel_rwsem_linked && g_kernel_rwsem_linked->down_read_killable; }

std::string state_text(const BatchSnapshot& s) {
  std::string v;
  for (int i = 0; i < std::min(std::max(s.count, 0), BATCH_SLOTS); i++) v += (i ? "," : "") + std::to_string(s.vmas[i]);
  char b[160];
  std::snprintf(b, sizeof b, "{count=%d vmas=[%s] round_trips=%d appends=%d removals=%d%s}", s.count, v.c_str(),
                s.lock_round_trips, s.appends, s.removals, s.finalized ? " finalized" : "");
  return b;
}

using StateSet = std::set<std::string>;  // the snapshots' bytes
StateSet explored_states() {
  StateSet set;
  for (const BatchSnapshot& s : explored_batch_states()) set.insert(std::string((const char*)&s, sizeof s));
  return set;
}
std::string only_in(const StateSet& a, const StateSet& b) {
  std::string out;
  int shown = 0, n = 0;
  for (const std::string& s : a)
    if (!b.count(s)) {
      n++;
      if (shown++ < 2) {
        BatchSnapshot snap;
        std::memcpy(static_cast<void*>(&snap), s.data(), sizeof snap);
        out += (out.empty() ? "" : " ") + state_text(snap);
      }
    }
  return n == 0 ? "" : std::to_string(n) + " (e.g. " + out + ")";
}

std::vector<PatchHunk> patch_hunks(const KernelArgs& a) {
  std::vector<PatchHunk> hunks;
  for (const std::string& p : a.patches) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    for (const PatchHunk& h : parse_patch_hunks(p, text.str())) hunks.push_back(h);
  }
  return hunks;
}

// The patched lines a counterexample's run executed, from the counters of a replay of that run
// alone: "kernel/locking/rwsem.c:1303 (__down_write_common)", each hunk's lines that ran (for
// removed lines, the lines on either side); empty when none ran.
std::vector<std::string> patched_lines_run(const std::vector<PatchHunk>& hunks, const LineCounts& run) {
  std::vector<std::string> cited;
  for (const PatchHunk& h : hunks) {
    const auto file = run.find(h.file);
    if (file == run.end()) continue;
    std::set<int> lines(h.changed.begin(), h.changed.end());
    lines.insert(h.deleted_at.begin(), h.deleted_at.end());
    std::string ran;
    for (int l : lines)
      if (file->second.count(l) && file->second.at(l) > 0) ran += (ran.empty() ? "" : ", ") + std::to_string(l);
    if (!ran.empty()) cited.push_back(h.file + ":" + ran + (h.context.empty() ? "" : " (" + h.context + ")"));
  }
  return cited;
}

// In the checker, after the scenarios: each hunk of each patch against what the checker compiled
// and what the scenarios executed. A verdict covers only code that ran: any hunk that did not
// makes the outcome `incomplete`, each such hunk named.
// counts: the kernel lines' execution counts, null when not measured (why says why).
Outcome patched_hunks_outcome(const std::vector<PatchHunk>& hunks, const LineCounts* counts, const std::string& why,
                              Json* hunks_json) {
  Outcome out;
  out.r.scenario = "patched hunks";
  out.r.variant = "kernel";
  out.r.search = "line coverage";
  out.expected = "verified";
  const KernelLines compiled = compiled_kernel_lines(kernel_generated_sources());
  const bool measured = counts != nullptr;
  int ran = 0;
  std::vector<std::string> missing;
  *hunks_json = Json::array();
  for (const PatchHunk& h : hunks) {
    const HunkCoverage c = classify_hunk(h, compiled, counts);
    const std::string text = hunk_text(h, c);
    if (hunk_leaves_incomplete(c)) missing.push_back(text);
    else ran++;
    hunks_json->push_back({{"patch", h.patch}, {"file", h.file}, {"line", hunk_first_line(h)},
                           {"function", h.context},
                           {"coverage", text.substr(text.rfind(": ") + 2)}, {"ran", !hunk_leaves_incomplete(c)}});
  }
  out.r.iterations = 0;
  if (missing.empty()) {
    out.r.result = "verified";
    out.r.message = "every hunk of the patches ran under the checker (" + std::to_string(ran) + ")";
  } else {
    out.r.result = "incomplete";
    out.r.message = std::to_string(missing.size()) + " of " + std::to_string(hunks.size()) +
                    " patched hunks never ran under the checker, so no verdict covers them: ";
    for (size_t i = 0; i < missing.size(); i++) out.r.message += (i ? "; " : "") + missing[i];
    if (!measured) out.r.message += " (" + why + ")";
  }
  out.as_expected = out.r.result == "verified";
  return out;
}

// In the checker, after the scenarios (--coverage): the line and branch coverage of the tree's
// code they ran, against the exceptions file. Every line and branch reached or excepted is
// `verified`; a gap outside the exceptions, or an exception that matches no gap while every
// scenario ran, is a failure (exit 1), as with vmaverify coverage.
Outcome coverage_outcome(const KernelArgs& a, const std::string* gcov_json, const std::string& why,
                         std::vector<CoverageException>* exceptions, Json* report_json) {
  Outcome out;
  out.r.scenario = "kernel coverage";
  out.r.variant = "kernel";
  out.r.search = "line and branch coverage";
  out.expected = "verified";
  out.r.iterations = 0;
  CoverageReport r;
  std::string err = gcov_json ? "" : why;
  if (gcov_json && !kernel_coverage_report(*gcov_json, kernel_generated_sources(), exceptions, &r, &err)) {}
  if (!err.empty()) {
    out.r.result = "error";
    out.r.kind = "coverage not measured";
    out.r.message = err;
    return out;
  }
  const bool every_scenario = a.scenarios.empty();
  int stale = 0;
  for (const CoverageException& x : *exceptions) stale += every_scenario && !x.used;
  int lines = 0, lines_run = 0, branches = 0, taken = 0;
  Json functions = Json::array(), gaps = Json::array();
  for (const FunctionCoverage& f : r.functions) {
    lines += f.lines, lines_run += f.lines_run, branches += f.branches, taken += f.branches_taken;
    functions.push_back({{"file", f.file}, {"function", f.name}, {"lines", f.lines}, {"lines_run", f.lines_run},
                         {"branches", f.branches}, {"branches_taken", f.branches_taken}});
  }
  for (const CoverageGap& g : r.gaps)
    gaps.push_back({{"file", g.file}, {"line", g.line}, {"function", g.function}, {"code", g.code},
                    {"branches", g.branches}, {"branches_taken", g.branches_taken},
                    {"excepted", g.excepted ? g.excepted->reason : ""}});
  *report_json = {{"functions", functions}, {"gaps", gaps}, {"text", coverage_text(r, *exceptions)}};
  char figures[200];
  std::snprintf(figures, sizeof figures, "lines %d/%d, branches %d/%d of %zu functions from the tree; ", lines_run, lines,
                taken, branches, r.functions.size());
  const int unexcepted = r.unexcepted_gaps();
  out.r.result = unexcepted || stale ? "counterexample" : "verified";
  out.r.kind = unexcepted || stale ? "coverage gap" : "";
  out.r.message = figures + std::to_string(unexcepted) + " gaps outside the exceptions" +
                  (every_scenario ? ", " + std::to_string(stale) + " stale exceptions"
                                  : " (stale exceptions not judged: a subset of the scenarios ran)");
  out.as_expected = out.r.result == "verified";
  return out;
}

// After the scenario's own search stopped at its budget (r incomplete): n runs of a random search,
// with the same options otherwise. A failure replaces r; else r says how many runs found none.
void sample_after_budget(const Scenario& s, const RunOptions& own, uint64_t n, RunResult* r) {
  RunOptions o = own;
  o.budget = 0;
  SearchSpec::parse("random:" + std::to_string(n), &o.search, nullptr);
  RunResult sampled = run_scenario(s, o, true);
  if (sampled.result == "counterexample") {
    sampled.stats["iterations of " + r->search + " before the sample"] = (long)r->iterations;
    *r = sampled;
  } else if (sampled.result == "incomplete") {  // a random search's verdict: none of the n runs failed
    r->message += "; then " + std::to_string(n) + " random runs (random:" + std::to_string(n) + ") found no failure";
    r->stats["random runs after the budget"] = (long)n;
  }  // an error (a scenario with CPUs: only the full search runs it) leaves r as it was
}

struct ScenarioOutcome {
  Outcome out;
  std::string agreement;
};

// In the contained child: one scenario on the kernel's code, and with --agree on the hand model
// too; its outcome and, with --agree, what the comparison found.
ScenarioOutcome run_one(const KernelArgs& a, const Scenario* s) {
  RunOptions o;
  o.progress = !a.quiet;
  o.mutant = a.mutant;
  // The scenario's own search, not a replay: the last fifth of the budget is for a random sample.
  const uint64_t sample = a.search.empty() && a.replay_state.empty() ? (uint64_t)(a.budget / kSampleShare) : 0;
  o.budget = (uint64_t)a.budget - sample;
  if (!a.search.empty()) SearchSpec::parse(a.search, &o.search, nullptr);  // validated while parsing
  if (!a.replay_state.empty()) {  // exactly the counterexample's run
    o.initial_state = a.replay_state;
    o.budget = 1;
    o.progress = false;
  }
  // A teardown runs the tree's batch and free_pgtables; every faithful rw_semaphore (the rwsem
  // scenarios', and those of the teardowns under the faithful semaphore) the tree's rwsem.c.
  const bool rwsem = is_rwsem(*s);
  g_kernel_rwsem = g_kernel_rwsem_linked;
  if (!rwsem) g_kernel_free_pgtables = g_kernel_free_pgtables_linked;
  g_active_mutant_reached = false;
  Outcome out;
  out.r = run_scenario(*s, o, !a.search.empty());
  const StateSet kernel_states = explored_states();
  if (sample && out.r.result == "incomplete") sample_after_budget(*s, o, sample, &out.r);
  g_kernel_free_pgtables = nullptr;
  g_kernel_rwsem = nullptr;
  out.r.variant = "kernel";
  if (a.mutant != "none" && !g_active_mutant_reached) {
    // A switch in the hand model's batch or free_pgtables is not in the kernel's code: a
    // verdict without it would be a verdict on nothing seeded.
    out.r.result = "error";
    out.r.kind = "mutant not reached";
    out.r.message = "mutant " + a.mutant + " was never reached: its switch is in code taken from the tree (a --patch "
                    "seeds a bug there) or outside what " + s->name + " runs";
  }
  out.expected = "verified";
  out.as_expected = out.r.result == "verified";
  std::string agreement;
  if (a.agree) {
    RunResult hand = run_scenario(*s, o, !a.search.empty());
    const StateSet hand_states = explored_states();
    const std::string only_hand = only_in(hand_states, kernel_states), only_kernel = only_in(kernel_states, hand_states);
    out.expected = "verified, agreeing with the hand model";
    const bool agrees = hand.result == out.r.result && hand.kind == out.r.kind && only_hand.empty() && only_kernel.empty();
    if (hand.result == "incomplete" || out.r.result == "incomplete") {
      // A search cut short reached only part of its states: nothing to compare them with.
      agreement = std::string("not compared: the ") + (out.r.result == "incomplete" ? "kernel code's" : "hand model's") +
                  " search is incomplete";
      if (out.r.result == "verified") {
        out.r.result = "incomplete";
        out.r.message = "the hand model's search is incomplete: " + hand.message;
      }
      out.as_expected = false;
    } else if (agrees && rwsem) {
      agreement = "agrees with the hand model: same verdict";
    } else if (agrees) {
      agreement = "agrees with the hand model: same verdict, the same " + std::to_string(hand_states.size()) + " batch states";
    } else {
      agreement = "disagrees with the hand model: hand model " + hand.result + (hand.kind.empty() ? "" : " (" + hand.kind + ")") +
                  " with " + std::to_string(hand_states.size()) + " batch states, kernel code " + out.r.result +
                  (out.r.kind.empty() ? "" : " (" + out.r.kind + ")") + " with " + std::to_string(kernel_states.size()) +
                  (only_hand.empty() ? "" : "; only the hand model reached " + only_hand) +
                  (only_kernel.empty() ? "" : "; only the kernel code reached " + only_kernel);
      out.as_expected = false;
      if (out.r.result == "verified") {
        out.r.result = "counterexample";
        out.r.kind = "disagreement";
        out.r.message = agreement;
      }
    }
  }
  return {out, agreement};
}

// Run the scenarios in contained children (verify/kernel/kernel_pool.hpp), --jobs at once, each
// outcome handed to `sink` in the scenarios' order; with count_lines each child hands over its
// gcov counters at the end. Returns "" when every scenario ran, otherwise what stopped a child.
std::string run_contained(const KernelArgs& a, const std::vector<const Scenario*>& chosen, bool count_lines,
                          std::vector<std::vector<GcdaFile>>* gcda,
                          const std::function<void(Outcome, const std::string&)>& sink) {
  // What the children would otherwise read from files: the spec files every explored batch state
  // is checked against (and the Z3 checker built from them), and the binary's hash for traces.
  freeze_spec_files(default_spec_files());
  std::string spec, why;
  check_states_against_specs({}, default_spec_files(), &spec, &why);
  current_origin();
  ContainedTasks t;
  t.count = chosen.size();
  t.jobs = a.jobs;
  t.count_lines = count_lines;
  t.run = [&](size_t i) {
    const ScenarioOutcome r = run_one(a, chosen[i]);
    return json_line(Json{{"agreement", r.agreement}, {"outcome", outcome_wire(r.out)}});
  };
  const auto t0 = std::chrono::steady_clock::now();
  return run_contained_tasks(
      t, gcda,
      [&](size_t i, const std::string& line) {
        // The child runs untrusted code, which may write on the pipe too: a line that is no
        // outcome is an error of that scenario, not a scenario left out.
        const Json j = Json::parse(line, nullptr, false);
        Outcome o;
        auto text_of = [&](const char* key) { return j.is_object() && j.contains(key) && j[key].is_string(); };
        if (text_of("outcome") && outcome_from_wire(j["outcome"].get<std::string>(), &o)) {
          sink(o, text_of("agreement") ? j["agreement"].get<std::string>() : "");
          return;
        }
        o = Outcome();
        o.r.scenario = chosen[i]->name;
        o.r.variant = "kernel";
        o.r.result = "error";
        o.r.kind = "unreadable outcome";
        o.r.message = "the contained child handed over no readable outcome for " + chosen[i]->name +
                      " (did the checked code write on its pipe?)";
        o.expected = "verified";
        sink(o, "");
      },
      [&](size_t n) {
        if (a.quiet || !a.replay_state.empty()) return;  // a replay: one run, no progress to show
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "kernel: %zu/%zu scenarios, %.0f s\n", n, chosen.size(), sec);
      });
}

// The line counts of every child's counters, gcov's JSON documents one after the other (their
// readers add up the counts of a line that several documents give).
bool read_counter_sets(const std::vector<std::vector<GcdaFile>>& sets, std::string* gcov_json, std::string* why) {
  if (sets.empty()) return read_kernel_counters({}, gcov_json, why);
  for (const std::vector<GcdaFile>& set : sets) {
    std::string one;
    if (!read_kernel_counters(set, &one, why)) return false;
    *gcov_json += one;
  }
  return true;
}

// ", configured CONFIG_RWSEM_SPIN_ON_OWNER=y CONFIG_DEBUG_RWSEMS=y": the settings in force.
std::string config_text(const std::vector<std::string>& given) {
  std::string t;
  for (const std::string& d : kernel_config_defaults()) {
    std::string v = d;
    for (const std::string& g : given)
      if (g.compare(0, g.find('='), d, 0, d.find('=')) == 0 && g.find('=') == d.find('=')) v = g;
    t += " " + v;
  }
  return ", configured" + t;
}

int replay_kernel_trace(const KernelArgs& a);

// In the checker: the tree's files a counterexample's rows cite, each with every line of it the
// checker compiled (the extracted functions, patches applied), for the HTML report's pages.
void attach_kernel_source_lines(RunResult* r) {
  if (r->events.empty()) return;
  std::set<std::string> cited;
  for (const TraceEvent& e : r->events) cited.insert(e.source.substr(0, e.source.rfind(':')));
  for_each_kernel_line(kernel_generated_sources(), [&](const std::string& file, int line, const std::string& text) {
    if (cited.count(file)) r->source_lines[file][line] = text;
  });
}

// In the checker: each scenario on the kernel's code, and with --agree on the hand model too.
int check(const KernelArgs& a) {
  if (!a.replay_file.empty()) return replay_kernel_trace(a);
  // The line counters' directory goes whatever happens below (an error, a stopped child).
  struct Discard {
    ~Discard() { discard_kernel_line_counts(); }
  } discard;
  std::vector<const Scenario*> chosen;
  for (const std::string& n : a.scenarios) {
    const Scenario* s = find_scenario(n);
    if (is_teardown(*s) && !g_kernel_free_pgtables_linked)
      return usage_error("kernel: " + n + " runs mm/ code (free_pgtables, the batch) that this tree does not have");
    if (is_rwsem(*s) && !g_kernel_rwsem_linked)
      return usage_error("kernel: " + n + " runs kernel/locking/rwsem.c, which this tree does not have");
    if (needs_killable(*s) && !tree_has_killable())
      return usage_error("kernel: " + n + " waits killably: this tree's kernel/locking/rwsem.c has no "
                         "__down_read_killable and __down_write_killable");
    chosen.push_back(s);
  }
  // Default: every scenario the tree's code serves, the rwsem ones first.
  if (chosen.empty()) {
    for (const Scenario& s : all_scenarios())
      if (is_rwsem(s) && g_kernel_rwsem_linked && (!needs_killable(s) || tree_has_killable())) chosen.push_back(&s);
    for (const Scenario& s : all_scenarios())
      if (is_teardown(s) && g_kernel_free_pgtables_linked) chosen.push_back(&s);
  }
  std::vector<CoverageException> exceptions;
  if (a.coverage) {
    std::string err;
    const std::string file = a.exceptions.empty() ? default_kernel_coverage_exceptions() : a.exceptions;
    if (!read_kernel_coverage_exceptions(file, kernel_generated_sources(), &exceptions, &err))
      return usage_error("kernel: --exceptions: " + err);
  }
  std::string files = g_kernel_free_pgtables_linked ? g_kernel_source_files : "";
  if (g_kernel_rwsem_linked) files += (files.empty() ? "" : ", ") + std::string(g_kernel_rwsem_source_file);
  if (!a.quiet && !a.json)
    std::printf("kernel code: %s of %s%s%s\n", files.c_str(), a.tree.empty() ? default_kernel_tarball() : a.tree.c_str(),
                a.patches.empty() ? "" : (" with " + std::to_string(a.patches.size()) + " patch(es)").c_str(),
                config_text(a.configs).c_str());
  std::vector<Outcome> outcomes;
  bool trace_written = false, trace_shown = false;
  int worst = EXIT_VERIFIED;
  std::vector<std::vector<GcdaFile>> gcda;
  const bool count_lines = !a.patches.empty() || a.coverage;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string stopped = run_contained(a, chosen, count_lines, &gcda, [&](Outcome out, const std::string& agreement) {
    attach_kernel_source_lines(&out.r);
    std::string trace;
    if (!a.trace.empty() && !trace_written && !out.r.state.empty()) {
      std::string err;
      if (write_trace(a.trace, out.r, &err, false, a.chains)) trace = a.trace;
      else std::fprintf(stderr, "vmaverify: kernel: counterexample found, but the trace was not written: %s\n", err.c_str());
      trace_written = true;
    }
    // --traces: every counterexample's trace in a file of its own, none inline.
    std::string in_dir;
    if (!a.traces.empty() && out.r.result == "counterexample" && !out.r.state.empty()) {
      std::string err, file = a.traces + "/" + out.r.scenario + ".kernel.json";
      if (write_trace(file, out.r, &err, false, a.chains)) in_dir = file;
      else std::fprintf(stderr, "vmaverify: kernel: counterexample found, but the trace was not written: %s\n", err.c_str());
    }
    if (trace.empty()) trace = in_dir;
    out.trace = trace;
    if (a.json) {
      Json j = outcome_json(out, trace);
      if (a.agree) j["agreement"] = agreement;
      std::printf("%s\n", json_line(j).c_str());
    } else {
      std::printf("%s %s\n", out.as_expected ? "ok  " : "FAIL", result_text(out.r).c_str());
      if (!agreement.empty()) std::printf("  %s\n", agreement.c_str());
      if (!in_dir.empty()) {
        std::printf("  trace in %s (and %s.txt)\n", in_dir.c_str(), in_dir.c_str());
      } else if (out.r.result == "counterexample" && !out.r.events.empty() && !a.quiet) {
        // Inline, the first counterexample's trace only: more would bury the result lines.
        if (!trace_shown) std::printf("%s", trace_text(out.r, false, a.chains).c_str());
        else std::printf("  trace not shown (only the first counterexample's is; --traces DIR writes each)\n");
        trace_shown = true;
      }
    }
    std::fflush(stdout);
    int st = out.as_expected ? EXIT_VERIFIED : exit_status(out.r) == EXIT_VERIFIED ? EXIT_COUNTEREXAMPLE : exit_status(out.r);
    if (st == EXIT_USAGE || (st == EXIT_COUNTEREXAMPLE && worst != EXIT_USAGE) || (st == EXIT_INCOMPLETE && worst == EXIT_VERIFIED))
      worst = st;
    outcomes.push_back(out);
  });
  if (!stopped.empty()) {
    // No verdict: the code under check stopped before every scenario ran (a forbidden call, a
    // crash). The scenarios it finished are reported above.
    Outcome out;
    out.r.scenario = "kernel";
    out.r.variant = "kernel";
    out.r.result = "error";
    out.r.kind = stopped.rfind("made the system call", 0) == 0 ? "forbidden system call" : "crash";
    out.r.message = "the checked code " + stopped;
    out.expected = "verified";
    if (a.json) std::printf("%s\n", json_line(outcome_json(out, "")).c_str());
    else std::printf("FAIL %s\n", result_text(out.r).c_str());
    std::fflush(stdout);
    worst = EXIT_USAGE;
    outcomes.push_back(out);
  }
  // Each counterexample of a patched tree replayed alone in a contained child of its own, whose
  // counters say which patched lines that run went through.
  std::vector<std::pair<std::string, std::vector<std::vector<GcdaFile>>>> replays;  // scenario, its run's counters
  if (!a.patches.empty() && stopped.empty())
    for (const Outcome& o : outcomes) {
      const Scenario* s = find_scenario(o.r.scenario);
      if (o.r.result != "counterexample" || o.r.state.empty() || !s) continue;
      KernelArgs one = a;
      one.replay_state = o.r.state;
      if (o.r.search.rfind("random:", 0) == 0) one.search = o.r.search;  // found by the sample
      one.agree = false;
      std::vector<std::vector<GcdaFile>> counters;
      if (run_contained(one, {s}, true, &counters, [](Outcome, const std::string&) {}).empty())
        replays.push_back({o.r.scenario, counters});
    }
  // The counters, read once (a process dumps its gcov counters once); the patches' hunks too.
  const std::vector<PatchHunk> hunks = patch_hunks(a);
  std::string gcov_json, why;
  const bool measured = count_lines && stopped.empty() && read_counter_sets(gcda, &gcov_json, &why);
  for (const auto& [scenario, counters] : replays) {
    std::string run_json, run_why;
    LineCounts run;
    if (!read_counter_sets(counters, &run_json, &run_why) || !parse_gcov_json(run_json, &run)) continue;
    const std::vector<std::string> cited = patched_lines_run(hunks, run);
    if (a.json) {
      std::printf("%s\n", json_line(Json{{"group", "counterexample's patched lines"}, {"scenario", scenario},
                                         {"patched_lines_run", cited}}).c_str());
    } else {
      std::string text;
      for (const std::string& c : cited) text += (text.empty() ? "" : "; ") + c;
      std::printf("  %s: the counterexample's run went through %s\n", scenario.c_str(),
                  cited.empty() ? "no patched line (the patch acts on it through other code)"
                                : ("the patched lines " + text).c_str());
    }
  }
  if (count_lines && !stopped.empty()) why = "the checked code stopped before its counters were handed over";
  if (a.coverage) {
    Json report;
    Outcome out = coverage_outcome(a, measured ? &gcov_json : nullptr, why, &exceptions, &report);
    if (a.json) {
      Json j = outcome_json(out, "");
      j["functions"] = report.value("functions", Json::array());
      j["gaps"] = report.value("gaps", Json::array());
      std::printf("%s\n", json_line(j).c_str());
    } else {
      std::printf("%s", report.value("text", "").c_str());
      std::printf("%s %s\n", out.as_expected ? "ok  " : "FAIL", result_text(out.r).c_str());
    }
    std::fflush(stdout);
    const int st = out.r.result == "error" ? EXIT_USAGE : out.as_expected ? EXIT_VERIFIED : EXIT_COUNTEREXAMPLE;
    if (st == EXIT_USAGE || (st == EXIT_COUNTEREXAMPLE && worst != EXIT_USAGE)) worst = st;
    outcomes.push_back(out);
  }
  if (!a.patches.empty()) {
    Json hunks_json;
    LineCounts counts;
    if (measured && !parse_gcov_json(gcov_json, &counts)) why = "gcov's output has no line counts";
    const bool lines_read = measured && why.empty();
    Outcome out = patched_hunks_outcome(hunks, lines_read ? &counts : nullptr, why, &hunks_json);
    if (a.json) {
      Json j = outcome_json(out, "");
      j["hunks"] = hunks_json;
      std::printf("%s\n", json_line(j).c_str());
    } else {
      for (const auto& h : hunks_json)
        std::printf("  hunk %s:%d%s: %s\n", h["file"].get<std::string>().c_str(), h["line"].get<int>(),
                    h["function"].get<std::string>().empty() ? "" : (" (" + h["function"].get<std::string>() + ")").c_str(),
                    h["coverage"].get<std::string>().c_str());
      std::printf("%s %s\n", out.as_expected ? "ok  " : "FAIL", result_text(out.r).c_str());
    }
    std::fflush(stdout);
    if (!out.as_expected && worst == EXIT_VERIFIED) worst = EXIT_INCOMPLETE;
    outcomes.push_back(out);
  }
  // The closing line: what was checked and how it came out, incomplete searches counted apart.
  int unexpected = 0, incomplete = 0;
  for (const Outcome& o : outcomes)
    if (!o.as_expected) (o.r.result == "incomplete" ? incomplete : unexpected)++;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (a.json)
    std::printf("%s\n", json_line(summary_json((int)outcomes.size(), unexpected, incomplete, seconds)).c_str());
  else
    std::printf("%zu checked, %zu as expected, %d unexpected, %d incomplete, %.0f s\n", outcomes.size(),
                outcomes.size() - unexpected - incomplete, unexpected, incomplete, seconds);
  std::string err;
  if (!a.junit.empty() && !write_junit(a.junit, outcomes, &err)) return usage_error("kernel: " + err);
  return worst;
}

// In the checker, --replay: exactly the run a kernel trace recorded, on this tree and these
// patches and settings (a trace does not record them: those it was recorded with reproduce it).
int replay_kernel_trace(const KernelArgs& a) {
  const std::string& file = a.replay_file;
  RunResult saved;
  std::string err, fingerprint;
  if (!read_trace(file, &saved, &err, nullptr, &fingerprint)) return usage_error("kernel: --replay: " + err);
  if (saved.variant != "kernel")
    return usage_error("kernel: --replay: " + file + ": variant " + shown(saved.variant) +
                       " is a run of the hand model, not of the kernel's code: vmaverify replay replays it");
  const Scenario* s = find_scenario(saved.scenario);
  if (!s || !(is_teardown(*s) || is_rwsem(*s)))
    return usage_error("kernel: --replay: " + file + ": " + shown(saved.scenario) + " is not a teardown or rwsem scenario");
  if ((is_rwsem(*s) && !g_kernel_rwsem_linked) || (is_teardown(*s) && !g_kernel_free_pgtables_linked))
    return usage_error("kernel: --replay: " + file + ": this tree does not have the code " + s->name + " runs");
  const std::string problem = trace_replay_problem(file, saved, fingerprint);
  if (!problem.empty()) return usage_error("kernel: --replay: " + problem);
  KernelArgs one = a;
  one.replay_state = saved.state;
  one.search = saved.search;
  one.mutant = saved.mutant;
  one.agree = false;
  Outcome got;
  std::vector<std::vector<GcdaFile>> counters;
  const std::string stopped = run_contained(one, {s}, false, &counters, [&](Outcome o, const std::string&) { got = o; });
  if (!stopped.empty()) return usage_error("kernel: --replay: the checked code " + stopped);
  const RunResult& r = got.r;
  if (r.result == "error") return usage_error("kernel: --replay: " + file + ": " + r.message);
  const std::string why_not = replay_difference(saved, r);
  if (a.json) {
    Json j = outcome_json(got, "");
    j["failing_step"] = r.failing_step;
    j["reproduced"] = why_not.empty();
    if (!why_not.empty()) j["reason"] = why_not;
    std::printf("%s\n", json_line(j).c_str());
  } else {
    std::printf("%s\n%s", result_text(r).c_str(), r.result == "counterexample" ? trace_text(r, false, a.chains).c_str() : "");
    if (why_not.empty())
      std::printf("replay: reproduced the recorded failure (same kind, same failing step)\n");
    else
      std::printf("replay: did NOT reproduce the recorded %s at step %d: %s (the trace does not record the tree, "
                  "patches and --config settings: give those it was recorded with)\n",
                  saved.kind.c_str(), saved.failing_step, why_not.c_str());
  }
  return why_not.empty() ? EXIT_COUNTEREXAMPLE : EXIT_NOT_REPRODUCED;
}

// In vmaverify: build the checker for this tree and these patches, then run it.
int build_and_hand_over(const KernelArgs& a) {
  if (!a.junit.empty()) {  // checked before the minutes of building and checking; nothing created
    const std::string why = unwritable_path(a.junit);
    if (!why.empty()) return usage_error("kernel: --junit " + why);
  }
  if (!a.traces.empty()) {
    const std::string why = unusable_output_dir("--traces", a.traces);
    if (!why.empty()) return usage_error("kernel: " + why);
  }
  KernelBuild b = build_kernel_checker(a.tree, a.patches, !a.quiet, a.coverage, a.configs);
  if (b.interrupted) {  // ended by the signal, as without the build's clean-up
    std::fprintf(stderr, "vmaverify: kernel: %s\n", b.error.c_str());
    std::fflush(nullptr);
    signal(b.interrupted, SIG_DFL);
    raise(b.interrupted);
  }
  if (!b.error.empty()) return usage_error("kernel: " + b.error);
  std::string err;
  if ((!a.patches.empty() || a.coverage) && !prepare_kernel_line_counts(b.checker, &err))
    return usage_error("kernel: " + err);
  std::vector<std::string> args = {b.checker, "kernel"};
  if (!a.tree.empty()) args.insert(args.end(), {"--tree", a.tree});
  for (const std::string& p : a.patches) args.insert(args.end(), {"--patch", p});
  if (!a.trace.empty()) args.insert(args.end(), {"--trace", a.trace});
  if (!a.traces.empty()) args.insert(args.end(), {"--traces", a.traces});
  if (!a.replay_file.empty()) args.insert(args.end(), {"--replay", a.replay_file});
  if (!a.junit.empty()) args.insert(args.end(), {"--junit", a.junit});
  if (a.mutant != "none") args.insert(args.end(), {"--mutant", a.mutant});
  if (!a.search.empty()) args.insert(args.end(), {"--search", a.search});
  for (const std::string& c : a.configs) args.insert(args.end(), {"--config", c});
  args.insert(args.end(), {"--budget", std::to_string(a.budget)});
  args.insert(args.end(), {"--jobs", std::to_string(a.jobs)});
  if (a.coverage) args.push_back("--coverage");
  if (a.coverage) args.insert(args.end(), {"--exceptions", a.exceptions.empty() ? default_kernel_coverage_exceptions()
                                                                                 : a.exceptions});
  if (a.agree) args.push_back("--agree");
  if (a.json) args.push_back("--json");
  if (a.quiet) args.push_back("--quiet");
  if (a.chains) args.push_back("--chains");
  for (const std::string& s : a.scenarios) args.push_back(s);
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(&s[0]);
  argv.push_back(nullptr);
  std::fflush(nullptr);
  execv(argv[0], argv.data());
  return usage_error("kernel: cannot run the checker " + b.checker + ": " + std::strerror(errno));
}

CommandRun define_kernel(CLI::App& cmd) {
  auto a = std::make_shared<KernelArgs>();
  CLI::Option* scenarios = only_known(cmd.add_option("SCENARIO", a->scenarios,
                            "teardown and rwsem scenarios to run (default: every one the tree's code serves;\n"
                            "see vmaverify list)")
                 ->type_name(""),
             "teardown or rwsem scenario", [](const std::string& n) {
               const Scenario* s = find_scenario(n);
               return s && (is_teardown(*s) || is_rwsem(*s));
             });
  cmd.add_option("--tree", a->tree,
                 "kernel source tree to take the code from. Default: Debian's linux-source-6.12\n"
                 "(the files needed, extracted once from /usr/src/linux-source-6.12.tar.xz)")
      ->type_name("DIR");
  cmd.add_option("--patch", a->patches, "apply FILE (patch -p1) to a scratch copy of the tree's files first; repeatable")
      ->type_name("FILE")
      ->allow_extra_args(false);  // one FILE per --patch: what follows is a scenario
  only_known(cmd.add_option("--mutant", a->mutant,
                            "switch one seeded bug on in the code not taken from the tree (the model's\n"
                            "world: page tables, actors); one never reached is an error (exit 2)")
                 ->type_name("NAME")
                 ->capture_default_str(),
             "mutant", [](const std::string& n) { return n == "none" || find_mutant(n) != nullptr; });
  cmd.add_flag("--agree", a->agree,
               "also run the hand model and check that both give the same verdict and reach\n"
               "the same batch states (what vmaverify all does)");
  std::string known;
  for (const std::string& d : kernel_config_defaults()) known += (known.empty() ? "" : ", ") + d.substr(0, d.find('=') + 1) + "y|n";
  cmd.add_option("--config", a->configs,
                 "compile the tree's rwsem.c with SETTING, CONFIG_NAME=y or n (repeatable): " + known + ".\n"
                 "Default: an x86-64 SMP distribution kernel's (" + kernel_config_defaults()[0] + ", " +
                     kernel_config_defaults()[1] + ")")
      ->type_name("SETTING")
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [known](std::string& v) {
            return kernel_config_known(v) ? std::string() : "unknown setting " + shown(v) + " (known: " + known + ")";
          },
          "", "config"));
  cmd.add_option("--search", a->search,
                 "explore each scenario with this search instead of its own (full, bound:N,\n"
                 "random:N; see vmaverify run)")
      ->type_name("full|bound:N|random:N")
      ->check(search_form());
  cmd.add_option("--budget", a->budget,
                 "most iterations to explore per scenario, an integer in [0, 10^15); a search\n"
                 "it stops is incomplete (exit 3), unless a random sample of runs in the last\n"
                 "fifth of the budget fails; 0: no limit")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(0LL, 999999999999999LL).description(""));
  CLI::Option* coverage = cmd.add_flag("--coverage", a->coverage,
               "after the scenarios, print the line and branch coverage of the tree's code they\n"
               "ran; exit 1 on a gap outside the exceptions file");
  cmd.add_option("--exceptions", a->exceptions,
                 "with --coverage: the branches no scenario reaches, each with its reason\n"
                 "(default: verify/kernel/kernel_coverage_exceptions.txt)")
      ->type_name("FILE")
      ->needs(coverage);
  cmd.add_option("--trace", a->trace, "on the first counterexample, write FILE (JSON) and FILE.txt")->type_name("FILE");
  cmd.add_option("--traces", a->traces,
                 "write every counterexample's trace to DIR/SCENARIO.kernel.json (and .txt) instead of\n"
                 "printing the first one")
      ->type_name("DIR");
  cmd.add_option("--junit", a->junit, "write JUnit XML: a test case per scenario")->type_name("FILE");
  cmd.add_option("--replay", a->replay_file,
                 "re-run exactly the run a kernel trace (--trace, --traces) recorded, with the --tree,\n"
                 "--patch and --config it was recorded with; exit 1 if it fails the same way at the\n"
                 "same step, 4 if not")
      ->type_name("TRACE_FILE")
      ->excludes(scenarios)
      ->check(CLI::Validator(CLI::ExistingFile).description(""));
  cmd.add_option("--jobs", a->jobs,
                 "scenarios searched at once, each in a contained child of its own (output in the\n"
                 "scenarios' order either way). Default: one a core")
      ->type_name("N")
      ->check(CLI::Range(1, kMaxKernelJobs).description(""));
  cmd.add_flag("--json", a->json, "print one JSON object per scenario: run's fields plus expected and as_expected");
  cmd.add_flag("--quiet", a->quiet, "no progress on stderr, no counterexample trace on stdout");
  cmd.add_flag("--chains", a->chains, "show each row's kernel call chain in the readable trace's function column");
  return [a] { return g_kernel_free_pgtables_linked || g_kernel_rwsem_linked ? check(*a) : build_and_hand_over(*a); };
}

}  // namespace

static CommandRegistrar reg({"kernel",
                             "The teardown and rwsem scenarios on the kernel's own code from a tree (patched if asked).",
                             &define_kernel});
