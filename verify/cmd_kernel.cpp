// vmaverify kernel: the teardown scenarios on the kernel's own batch code and free_pgtables,
// and the rwsem scenarios on its kernel/locking/rwsem.c, taken from a kernel tree
// (verify/kernel_build.hpp), patched if asked. vmaverify builds the
// checker (vmaverify with the tree's code linked in) and hands over to it; the checker, which
// runs this same command, explores.
#include <signal.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
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
#include "verify/cli.hpp"
#include "verify/json_out.hpp"
#include "verify/junit.hpp"
#include "verify/kernel_build.hpp"
#include "verify/result_output.hpp"
#include "verify/safe_write.hpp"
#include "verify/scenario.hpp"
#include "verify/trace.hpp"

namespace {

struct KernelArgs {
  std::string tree, trace, junit, mutant = "none";
  std::vector<std::string> patches, scenarios;
  bool agree = false, json = false, quiet = false;
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

// In the checker, after the scenarios: each hunk of each patch against what the checker compiled
// and what the scenarios executed. A verdict covers only code that ran: any hunk that did not
// makes the outcome `incomplete`, each such hunk named.
Outcome patched_hunks_outcome(const KernelArgs& a, Json* hunks_json) {
  Outcome out;
  out.r.scenario = "patched hunks";
  out.r.variant = "kernel";
  out.r.search = "line coverage";
  out.expected = "verified";
  std::vector<PatchHunk> hunks;
  for (const std::string& p : a.patches) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    for (const PatchHunk& h : parse_patch_hunks(p, text.str())) hunks.push_back(h);
  }
  const KernelLines compiled = compiled_kernel_lines(kernel_generated_sources());
  LineCounts counts;
  std::string why;
  const bool measured = measure_kernel_lines(&counts, &why);
  int ran = 0;
  std::vector<std::string> missing;
  *hunks_json = Json::array();
  for (const PatchHunk& h : hunks) {
    const HunkCoverage c = classify_hunk(h, compiled, measured ? &counts : nullptr);
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

// In the checker: each scenario on the kernel's code, and with --agree on the hand model too.
int check(const KernelArgs& a) {
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
  // Default: every scenario the tree's code serves, the rwsem ones first and the reduced searches
  // last: a search after a completed reduced one in the same process once crashed inside Relacy
  // (README, "vmaverify kernel": no longer reproduced, cause not found, so the order stays).
  if (chosen.empty()) {
    for (const Scenario& s : all_scenarios())
      if (is_rwsem(s) && g_kernel_rwsem_linked && (!needs_killable(s) || tree_has_killable())) chosen.push_back(&s);
    for (bool reduced : {false, true})
      for (const Scenario& s : all_scenarios())
        if (is_teardown(s) && g_kernel_free_pgtables_linked && (s.search.find("reduce") != std::string::npos) == reduced)
          chosen.push_back(&s);
  }
  std::string files = g_kernel_free_pgtables_linked ? g_kernel_source_files : "";
  if (g_kernel_rwsem_linked) files += (files.empty() ? "" : ", ") + std::string(g_kernel_rwsem_source_file);
  if (!a.quiet && !a.json)
    std::printf("kernel code: %s of %s%s\n", files.c_str(), a.tree.empty() ? default_kernel_tarball() : a.tree.c_str(),
                a.patches.empty() ? "" : (" with " + std::to_string(a.patches.size()) + " patch(es)").c_str());
  std::vector<Outcome> outcomes;
  bool trace_written = false;
  int worst = EXIT_VERIFIED;
  for (const Scenario* s : chosen) {
    RunOptions o;
    o.progress = !a.quiet;
    o.mutant = a.mutant;
    // A teardown runs the tree's batch and free_pgtables; every faithful rw_semaphore (the rwsem
    // scenarios', and those of the teardowns under the faithful semaphore) the tree's rwsem.c.
    const bool rwsem = is_rwsem(*s);
    g_kernel_rwsem = g_kernel_rwsem_linked;
    if (!rwsem) g_kernel_free_pgtables = g_kernel_free_pgtables_linked;
    g_active_mutant_reached = false;
    Outcome out;
    out.r = run_scenario(*s, o, false);
    const StateSet kernel_states = explored_states();
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
      RunResult hand = run_scenario(*s, o, false);
      const StateSet hand_states = explored_states();
      const std::string only_hand = only_in(hand_states, kernel_states), only_kernel = only_in(kernel_states, hand_states);
      out.expected = "verified, agreeing with the hand model";
      const bool agrees = hand.result == out.r.result && hand.kind == out.r.kind && only_hand.empty() && only_kernel.empty();
      if (agrees && rwsem) {
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
    std::string trace;
    if (!a.trace.empty() && !trace_written && !out.r.state.empty()) {
      std::string err;
      if (write_trace(a.trace, out.r, &err)) trace = a.trace;
      else std::fprintf(stderr, "vmaverify: kernel: counterexample found, but the trace was not written: %s\n", err.c_str());
      trace_written = true;
    }
    out.trace = trace;
    if (a.json) {
      Json j = outcome_json(out, trace);
      if (a.agree) j["agreement"] = agreement;
      std::printf("%s\n", json_line(j).c_str());
    } else {
      std::printf("%s %s\n", out.as_expected ? "ok  " : "FAIL", result_text(out.r).c_str());
      if (!agreement.empty()) std::printf("  %s\n", agreement.c_str());
      if (out.r.result == "counterexample" && !out.r.events.empty() && !a.quiet) std::printf("%s", trace_text(out.r).c_str());
    }
    std::fflush(stdout);
    int st = out.as_expected ? EXIT_VERIFIED : exit_status(out.r) == EXIT_VERIFIED ? EXIT_COUNTEREXAMPLE : exit_status(out.r);
    if (st == EXIT_USAGE || (st == EXIT_COUNTEREXAMPLE && worst != EXIT_USAGE) || (st == EXIT_INCOMPLETE && worst == EXIT_VERIFIED))
      worst = st;
    outcomes.push_back(out);
  }
  if (!a.patches.empty()) {
    Json hunks;
    Outcome out = patched_hunks_outcome(a, &hunks);
    if (a.json) {
      Json j = outcome_json(out, "");
      j["hunks"] = hunks;
      std::printf("%s\n", json_line(j).c_str());
    } else {
      for (const auto& h : hunks)
        std::printf("  hunk %s:%d%s: %s\n", h["file"].get<std::string>().c_str(), h["line"].get<int>(),
                    h["function"].get<std::string>().empty() ? "" : (" (" + h["function"].get<std::string>() + ")").c_str(),
                    h["coverage"].get<std::string>().c_str());
      std::printf("%s %s\n", out.as_expected ? "ok  " : "FAIL", result_text(out.r).c_str());
    }
    std::fflush(stdout);
    if (!out.as_expected && worst == EXIT_VERIFIED) worst = EXIT_INCOMPLETE;
    outcomes.push_back(out);
  }
  std::string err;
  if (!a.junit.empty() && !write_junit(a.junit, outcomes, &err)) return usage_error("kernel: " + err);
  return worst;
}

// In vmaverify: build the checker for this tree and these patches, then run it.
int build_and_hand_over(const KernelArgs& a) {
  if (!a.junit.empty()) {  // checked before the minutes of building and checking; nothing created
    const std::string why = unwritable_path(a.junit);
    if (!why.empty()) return usage_error("kernel: --junit " + why);
  }
  KernelBuild b = build_kernel_checker(a.tree, a.patches, !a.quiet);
  if (b.interrupted) {  // ended by the signal, as without the build's clean-up
    std::fprintf(stderr, "vmaverify: kernel: %s\n", b.error.c_str());
    std::fflush(nullptr);
    signal(b.interrupted, SIG_DFL);
    raise(b.interrupted);
  }
  if (!b.error.empty()) return usage_error("kernel: " + b.error);
  std::string err;
  if (!a.patches.empty() && !prepare_kernel_line_counts(b.checker, &err)) return usage_error("kernel: " + err);
  std::vector<std::string> args = {b.checker, "kernel"};
  if (!a.tree.empty()) args.insert(args.end(), {"--tree", a.tree});
  for (const std::string& p : a.patches) args.insert(args.end(), {"--patch", p});
  if (!a.trace.empty()) args.insert(args.end(), {"--trace", a.trace});
  if (!a.junit.empty()) args.insert(args.end(), {"--junit", a.junit});
  if (a.mutant != "none") args.insert(args.end(), {"--mutant", a.mutant});
  if (a.agree) args.push_back("--agree");
  if (a.json) args.push_back("--json");
  if (a.quiet) args.push_back("--quiet");
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
  only_known(cmd.add_option("SCENARIO", a->scenarios,
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
  cmd.add_option("--trace", a->trace, "on the first counterexample, write FILE (JSON) and FILE.txt")->type_name("FILE");
  cmd.add_option("--junit", a->junit, "write JUnit XML: a test case per scenario")->type_name("FILE");
  cmd.add_flag("--json", a->json, "print one JSON object per scenario: run's fields plus expected and as_expected");
  cmd.add_flag("--quiet", a->quiet, "no progress on stderr, no counterexample trace on stdout");
  return [a] { return g_kernel_free_pgtables_linked || g_kernel_rwsem_linked ? check(*a) : build_and_hand_over(*a); };
}

}  // namespace

static CommandRegistrar reg({"kernel",
                             "The teardown and rwsem scenarios on the kernel's own code from a tree (patched if asked).",
                             &define_kernel});
