// vmaverify prove: the Z3 proofs of the batch specs, and the batch mutants they must refute.
// Also the "proofs" group of vmaverify all.
#include <algorithm>
#include <cstdio>
#include "proofs/prover.hpp"
#include "verify/all.hpp"
#include "verify/cli.hpp"
#include "verify/json.hpp"

static std::string kind_of(const ProofResult& r) {
  if (r.result == "refuted") return "invariant";
  if (r.result == "error") return "malformed spec";
  return "";
}

static std::string proof_json(const ProofResult& r) {
  return JsonObject()
      .str("scenario", r.spec)
      .str("spec", r.spec)
      .str("mutant", r.mutant)
      .str("search", r.method)
      .str("result", r.result)
      .str("kind", kind_of(r))
      .str("message", r.message)
      .str("counterexample", r.counterexample)
      .num("iterations", 0LL)
      .num("seconds", r.seconds)
      .done();
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

static int cmd_prove(const std::vector<std::string>& in) {
  Args a;
  std::string err;
  if (!parse_args(in, {"--mutant"}, {"--json"}, &a, &err)) return usage_error("prove: " + err);
  const std::string mutant = a.get("--mutant", "none");
  std::vector<std::string> names = batch_mutant_names();
  if (mutant != "none" && std::find(names.begin(), names.end(), mutant) == names.end())
    return usage_error("prove: unknown batch mutant '" + mutant + "'");
  const bool all_defaults = a.positional.empty();
  const std::vector<std::string> files = all_defaults ? default_spec_files() : a.positional;
  if (files.empty()) return usage_error("prove: no spec files found");

  bool malformed = false, failed = false;
  auto report = [&](const ProofResult& r, const std::string& expected) {
    malformed |= r.result == "error";
    failed |= r.result != expected;
    if (a.has("--json"))
      std::printf("%s\n", proof_json(r).c_str());
    else
      print_proof(r);
    std::fflush(stdout);
  };
  for (const ProofResult& r : prove_specs(files, mutant)) report(r, "proved");
  if (all_defaults && mutant == "none")
    for (const std::string& m : names) report(refute_batch_mutant(files, m), "refuted");
  return malformed ? EXIT_USAGE : failed ? EXIT_COUNTEREXAMPLE : EXIT_VERIFIED;
}

static CommandRegistrar reg({"prove", "prove [SPEC_FILE...] [--mutant NAME] [--json]", &cmd_prove});

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

// Every default spec must be proved on the patch, and every batch mutant refuted by one.
static void run_proofs(bool progress, const OutcomeSink& sink) {
  const std::vector<std::string> files = default_spec_files();
  if (progress) std::fprintf(stderr, "proving %zu specs and %zu batch mutants\n", files.size(), batch_mutant_names().size());
  for (const ProofResult& r : prove_specs(files)) sink(outcome_of(r, "proved"));
  for (const std::string& m : batch_mutant_names()) sink(outcome_of(refute_batch_mutant(files, m), "refuted"));
}

static CheckGroupRegistrar proofs_group({"proofs", &run_proofs});
