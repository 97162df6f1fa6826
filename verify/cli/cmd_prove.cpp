// vmaverify prove: the Z3 proofs of the batch specs, and the batch mutants they must refute.
// Also the "proofs" group of vmaverify all.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <CLI/CLI.hpp>
#include "proofs/prover.hpp"
#include "verify/checks/all.hpp"
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"

static std::string kind_of(const ProofResult& r) {
  if (r.result == "refuted") return "invariant";
  if (r.result == "error") return "malformed spec";
  if (r.result == "incomplete") return "limit";
  return "";
}

static Json proof_json(const ProofResult& r) {
  return {{"scenario", r.spec},       {"spec", r.spec},       {"mutant", r.mutant},
          {"search", r.method},       {"result", r.result},   {"kind", kind_of(r)},
          {"message", r.message},     {"counterexample", r.counterexample},
          {"iterations", 0},          {"seconds", r.seconds}};
}

static std::string indented(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += "    " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

static void print_proof(const ProofResult& r) {
  std::string who = r.mutant == "none" ? r.spec : "mutant " + r.mutant + (r.spec.empty() ? "" : " vs " + r.spec);
  std::printf("%-8s %s (%s, %.2f s): %s\n", r.result.c_str(), who.c_str(), r.method.empty() ? "-" : r.method.c_str(),
              r.seconds, r.message.c_str());
  if (!r.counterexample.empty()) std::printf("%s", indented(r.counterexample).c_str());
}

struct ProveArgs {
  std::vector<std::string> files;
  std::string mutant = "none", specs;
  bool json = false;
  ProofLimits limits;
};

// What a mutant refutation says when some specs were left out for failing on the patch.
static ProofResult noting_unused(ProofResult r, const std::vector<std::string>& not_proved) {
  if (not_proved.empty()) return r;
  std::string names;
  for (const std::string& n : not_proved) names += (names.empty() ? "" : ", ") + n;
  r.message += " (not counted, not proved on the correct model: " + names + ")";
  return r;
}

static int prove(const ProveArgs& a) {
  const std::vector<std::string> names = batch_mutant_names();
  const bool all_defaults = a.files.empty();
  if (!a.specs.empty()) set_specs_dir(a.specs);
  const std::vector<std::string> files = all_defaults ? default_spec_files() : a.files;
  if (files.empty()) return usage_error("prove: no spec files found in " + specs_dir());

  set_proof_limits(a.limits);
  bool malformed = false, failed = false, incomplete = false;
  auto report = [&](const ProofResult& r, const std::string& expected) {
    malformed |= r.result == "error";
    incomplete |= r.result == "incomplete";
    failed |= r.result != expected && r.result != "incomplete";
    if (r.result == "error") usage_error("prove: " + r.message);  // the contract's line on stderr
    if (a.json)
      std::printf("%s\n", json_line(proof_json(r)).c_str());
    else if (r.result != "error")
      print_proof(r);
    std::fflush(stdout);
  };
  const std::vector<ProofResult> results = prove_specs(files, a.mutant);
  for (const ProofResult& r : results) report(r, "proved");
  if (all_defaults && a.mutant == "none") {
    std::vector<std::string> not_proved;
    const std::vector<std::string> sound = proved_on_patch(files, results, &not_proved);
    // Said once in the text (each JSON object says it, as each stands alone).
    if (!a.json && !not_proved.empty()) {
      std::string list;
      for (const std::string& n : not_proved) list += (list.empty() ? "" : ", ") + n;
      std::printf("not counted against the mutants below, not proved on the correct model: %s\n", list.c_str());
    }
    for (const std::string& m : names)
      report(a.json ? noting_unused(refute_batch_mutant(sound, m), not_proved) : refute_batch_mutant(sound, m), "refuted");
  }
  return malformed ? EXIT_USAGE : failed ? EXIT_COUNTEREXAMPLE : incomplete ? EXIT_INCOMPLETE : EXIT_VERIFIED;
}

static bool is_batch_mutant(const std::string& name) {
  const std::vector<std::string> names = batch_mutant_names();
  return name == "none" || std::find(names.begin(), names.end(), name) != names.end();
}

static std::string batch_mutant_list() {
  std::string s = "batch mutants:";
  for (const std::string& m : batch_mutant_names()) s += " " + m;
  return s;
}

static CommandRun define_prove(CLI::App& cmd) {
  auto a = std::make_shared<ProveArgs>();
  cmd.add_option("SPEC_FILE", a->files,
                 "SMT-LIB spec files to prove. Default: every file in proofs/specs/,\n"
                 "then every batch mutant must be refuted by them")
      ->type_name("");
  only_known(cmd.add_option("--mutant", a->mutant, "prove the specs on this batch mutant instead of the patch")
                 ->type_name("NAME")
                 ->capture_default_str(),
             "batch mutant", &is_batch_mutant, batch_mutant_list());
  cmd.add_option("--specs", a->specs, "directory of the default spec files and of assumed specs\n(default: proofs/specs of this checkout)")
      ->type_name("DIR");
  cmd.add_option("--time-limit", a->limits.seconds,
                 "seconds one proof may take (wall clock); past it the proof is incomplete (exit 3)")
      ->type_name("S")
      ->capture_default_str()
      ->check(CLI::Range(1u, 86400u).description(""));
  cmd.add_option("--memory-limit", a->limits.memory_mb,
                 "MiB Z3 may use during one proof; past it the proof is incomplete (exit 3)")
      ->type_name("MIB")
      ->capture_default_str()
      ->check(CLI::Range(64u, 1048576u).description(""));
  cmd.add_flag("--json", a->json, "print one JSON object per proof");
  return [a] { return prove(*a); };
}

static CommandRegistrar reg({"prove", "Prove the batch spec files with Z3 and refute every batch mutant.", &define_prove});

static Outcome outcome_of(const ProofResult& p, const std::string& expected) {
  Outcome o;
  o.r.scenario = p.spec.empty() ? "(every spec)" : p.spec;
  o.r.mutant = p.mutant;
  o.r.search = p.method;
  o.r.result = p.result;
  o.r.kind = kind_of(p);
  o.r.message = p.message;
  o.r.history = p.counterexample;
  o.r.seconds = p.seconds;
  o.expected = expected;
  o.as_expected = p.result == expected;
  return o;
}

// Every default spec must be proved on the patch, and every batch mutant refuted by one of
// those proved (a false spec would refute any mutant). One check: the mutants need the
// specs' results.
static std::vector<Check> proof_checks(bool progress) {
  Outcome on_crash;
  on_crash.r.scenario = "(every spec)";
  on_crash.expected = "proved";
  return {{on_crash, [progress](const OutcomeSink& sink) {
             const std::vector<std::string> files = default_spec_files();
             if (progress)
               std::fprintf(stderr, "proving %zu specs and %zu batch mutants\n", files.size(), batch_mutant_names().size());
             const std::vector<ProofResult> results = prove_specs(files);
             for (const ProofResult& r : results) sink(outcome_of(r, "proved"));
             std::vector<std::string> not_proved;
             const std::vector<std::string> sound = proved_on_patch(files, results, &not_proved);
             for (const std::string& m : batch_mutant_names())
               sink(outcome_of(noting_unused(refute_batch_mutant(sound, m), not_proved), "refuted"));
           }}};
}

static CheckGroupRegistrar proofs_group({"proofs", &proof_checks});
