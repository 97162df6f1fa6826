// The Z3 side as the command line and the exploration driver use it.
#pragma once
#include <string>
#include <vector>
#include "proofs/batch_state.hpp"

struct ProofResult {
  std::string spec;             // spec name: file name without .smt2
  std::string mutant = "none";  // batch mutant switched on, or "none"
  std::string result;           // proved | refuted | incomplete (Z3 answered unknown, or a limit) | error
  std::string message;          // one line: what was shown, or what went wrong (errors: FILE:LINE: Z3's message)
  std::string counterexample;   // refuted: the state(s) and the step, readable
  double seconds = 0;
  std::string method;           // "induction" or "trace:N"
};

// What one proof (one spec on one mutant) may use: Z3's answer past either is "incomplete",
// the message naming the limit. A proof that takes long is a spec Z3 cannot handle.
struct ProofLimits {
  unsigned seconds = 300;     // wall clock, the whole proof (each Z3 check also stops at 30 s)
  unsigned memory_mb = 2048;  // Z3's memory_max_size, for the process while a proof runs
};
void set_proof_limits(const ProofLimits& limits);
const ProofLimits& proof_limits();

// Proves each spec file on the batch with the given mutant switched on; one result per file,
// in order. Specs named by "; assumes:" lines are proved too: a spec whose own proof succeeds
// is reported refuted (or error) when one it relies on, directly or not, is.
std::vector<ProofResult> prove_specs(const std::vector<std::string>& spec_files, const std::string& mutant = "none");

// A batch mutant against the specs: refuted by the first spec (in order) that fails with it
// on, "proved" when every spec survives it, error when a spec is malformed. Callers pass only
// specs proved on the correct model (proved_on_patch): a false spec refutes anything.
ProofResult refute_batch_mutant(const std::vector<std::string>& spec_files, const std::string& mutant);
// The same for every batch mutant, in batch_mutant_names() order.
std::vector<ProofResult> refute_batch_mutants(const std::vector<std::string>& spec_files);

// The files whose result on the correct model (prove_specs(spec_files) in order) is proved;
// *not_proved lists the names of the others.
std::vector<std::string> proved_on_patch(const std::vector<std::string>& spec_files,
                                         const std::vector<ProofResult>& results, std::vector<std::string>* not_proved);

// The spec directory: the one set (vmaverify --specs DIR), else proofs/specs beside the build
// directory holding the executable (a moved checkout finds its own specs), else the source's.
void set_specs_dir(const std::string& dir);
std::string specs_dir();
// Every *.smt2 in specs_dir(), sorted.
std::vector<std::string> default_spec_files();
std::vector<std::string> batch_mutant_names();

// Checks concrete explored states against every induction spec (trace specs speak of whole
// teardowns, not states, and are skipped). False on the first violation or malformed spec,
// with *violated_spec naming it and *message saying why (the state, printed). A malformed
// spec (or one Z3 fails on) also sets *malformed when given: that is bad input, not a violation.
bool check_states_against_specs(const std::vector<BatchSnapshot>& states, const std::vector<std::string>& spec_files,
                                std::string* violated_spec, std::string* message, bool* malformed = nullptr);
