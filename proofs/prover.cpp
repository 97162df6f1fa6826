// The prover's entry points, and the bookkeeping of "; assumes:" so that a proof relying
// on another spec is only as good as that spec.
#include "proofs/prover.hpp"
#include "proofs/spec_file.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include "proofs/proof_steps.hpp"

namespace fs = std::filesystem;

static std::string& specs_dir_set() {
  static std::string dir;
  return dir;
}
void set_specs_dir(const std::string& dir) { specs_dir_set() = dir; }

std::string specs_dir() {
  if (!specs_dir_set().empty()) return specs_dir_set();
  std::error_code ec;
  fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "proofs" / "specs";
  if (!ec && fs::is_directory(beside, ec)) return beside.string();
  return VMAVERIFY_SPECS_DIR;
}

std::vector<std::string> default_spec_files() {
  // Once the spec files are frozen (freeze_spec_files), the list as it was last read.
  static std::vector<std::string> frozen;
  if (spec_files_frozen()) return frozen;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(specs_dir(), ec))
    if (e.path().extension() == ".smt2") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  frozen = files;
  return files;
}

std::vector<std::string> batch_mutant_names() {
  std::vector<std::string> names;
  for (const BatchMutantInfo& m : batch_mutants()) names.push_back(m.name);
  return names;
}

// Where "; assumes: NAME" finds NAME.smt2: beside the spec, then among the default specs.
static std::string find_assumed(const Spec& spec, const std::string& name) {
  for (const fs::path& dir : {fs::path(spec.path).parent_path(), fs::path(specs_dir())}) {
    fs::path p = dir / (name + ".smt2");
    std::error_code ec;
    if (fs::exists(p, ec)) return p.string();
  }
  return "";
}

// The default invariant specs (specs_dir()) this one does not assume yet: what a "not inductive"
// refutation may suggest assuming. Malformed ones are left out (their own proof says why).
static std::vector<NamedSpec> other_invariants(z3::context& c, const Spec& spec, const Vocabulary& voc) {
  std::vector<NamedSpec> out;
  std::error_code ec;
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(specs_dir(), ec))
    if (e.path().extension() == ".smt2") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) {
    Spec o;
    z3::expr e(c);
    std::string err;
    if (!load_spec(p.string(), &o, &err) || o.is_trace() || o.name == spec.name) continue;
    if (std::find(spec.assumes.begin(), spec.assumes.end(), o.name) != spec.assumes.end()) continue;
    if (parse_spec(c, o, voc, &e, &err)) out.push_back({o.name, e});
  }
  return out;
}

// Parses what the spec's proof needs (its assumptions, or its prefix_invariant) and runs it.
static ProofResult run_proof(z3::context& c, const Spec& spec, BatchMutant mutant, ProofResult r) {
  Vocabulary voc(c, spec.is_trace());
  z3::expr inv(c);
  std::string err;
  if (!parse_spec(c, spec, voc, &inv, &err)) return error_result(spec, r.mutant, err);
  if (spec.is_trace()) {
    if (!spec.assumes.empty())
      return error_result(spec, r.mutant, spec.path + ":" + std::to_string(spec.assumes_line) +
                                              ": a trace spec starts from init and assumes nothing");
    z3::expr pi(c);
    bool has_pi = parse_defined_bool(c, spec, voc, "prefix_invariant", &pi, &err);
    if (!err.empty()) return error_result(spec, r.mutant, err);
    return prove_on_traces(c, spec, voc, inv, has_pi ? &pi : nullptr, mutant, r);
  }
  std::vector<z3::expr> assumed;
  for (const std::string& name : spec.assumes) {
    Spec a;
    z3::expr e(c);
    std::string at = spec.path + ":" + std::to_string(spec.assumes_line) + ": assumed spec '" + name + "'";
    std::string path = find_assumed(spec, name);
    if (path.empty()) return error_result(spec, r.mutant, at + " not found");
    if (!load_spec(path, &a, &err)) return error_result(spec, r.mutant, at + ": " + err);
    if (a.is_trace()) return error_result(spec, r.mutant, at + " is a trace spec, not an invariant");
    if (!parse_spec(c, a, voc, &e, &err)) return error_result(spec, r.mutant, at + ": " + err);
    assumed.push_back(e);
  }
  return prove_by_induction(c, spec, voc, inv, assumed, mutant, r, other_invariants(c, spec, voc));
}

static ProofLimits g_limits;
void set_proof_limits(const ProofLimits& limits) { g_limits = limits; }
const ProofLimits& proof_limits() { return g_limits; }

namespace {

// Interrupts the context's Z3 calls once the proof's time is up (Z3_interrupt may be called
// from another thread; it stops the current check, so it is repeated until the proof returns).
class Watchdog {
 public:
  Watchdog(z3::context& c, unsigned seconds) : thread_([this, &c, seconds] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (wake_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) return;
      fired_ = true;
      while (!wake_.wait_for(lock, std::chrono::milliseconds(50), [this] { return done_; })) c.interrupt();
    }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  bool fired() const { return fired_; }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::atomic<bool> fired_{false};
  std::thread thread_;
};

bool mentions_memory(const std::string& s) {
  return s.find("memory") != std::string::npos || s.find("memout") != std::string::npos;
}

}  // namespace

// The spec's own proof, taking its direct assumptions as hypotheses, within proof_limits().
static ProofResult own_proof(const Spec& spec, const std::string& mutant_name) {
  const ProofLimits limits = g_limits;
  z3::set_param("memory_max_size", (int)limits.memory_mb);
  const std::string time_limit = "proof time limit of " + std::to_string(limits.seconds) + " s reached";
  const std::string memory_limit = "proof memory limit of " + std::to_string(limits.memory_mb) + " MiB reached";
  auto start = std::chrono::steady_clock::now();
  ProofResult r = error_result(spec, mutant_name, "");
  BatchMutant mutant;
  if (!find_batch_mutant(mutant_name, &mutant)) {
    r.message = "unknown batch mutant '" + mutant_name + "'";
  } else {
    try {
      z3::context c;
      Watchdog watchdog(c, limits.seconds);
      try {
        r = run_proof(c, spec, mutant, r);
      } catch (const z3::exception& e) {
        r = error_result(spec, mutant_name, spec.path + ": Z3: " + e.msg());
        if (mentions_memory(e.msg())) r = incomplete_result(spec, mutant_name, spec.path + ": " + memory_limit);
      }
      // Whatever Z3 said once interrupted (unknown, or an exception) is the time limit.
      if (watchdog.fired() && r.result != "proved" && r.result != "refuted")
        r = incomplete_result(spec, mutant_name, spec.path + ": " + time_limit);
    } catch (const z3::exception& e) {
      r = mentions_memory(e.msg()) ? incomplete_result(spec, mutant_name, spec.path + ": " + memory_limit)
                                   : error_result(spec, mutant_name, spec.path + ": Z3: " + e.msg());
    }
    if (r.result == "incomplete" && mentions_memory(r.message) && r.message.find(memory_limit) == std::string::npos)
      r.message += " (" + memory_limit + ")";
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// How a proof that stood on a failed assumption is reported.
static const std::string ASSUMED_FAILED = "proved assuming ";

std::vector<ProofResult> prove_specs(const std::vector<std::string>& spec_files, const std::string& mutant) {
  std::map<std::string, ProofResult> own;                     // by path
  std::map<std::string, std::vector<std::string>> relies_on;  // path -> assumed paths
  std::function<const ProofResult&(const std::string&)> prove = [&](const std::string& path) -> const ProofResult& {
    auto done = own.find(path);
    if (done != own.end()) return done->second;
    Spec spec;
    std::string err;
    if (!load_spec(path, &spec, &err)) {
      spec.name = fs::path(path).stem().string();
      return own[path] = error_result(spec, mutant, err);
    }
    own[path] = own_proof(spec, mutant);
    for (const std::string& name : spec.assumes) {
      std::string p = find_assumed(spec, name);
      if (!p.empty()) relies_on[path].push_back(p);
    }
    for (const std::string& p : relies_on[path]) prove(p);
    return own[path];
  };

  std::vector<ProofResult> results;
  for (const std::string& path : spec_files) {
    ProofResult r = prove(path);
    // A proof by induction under assumptions stands only if every spec it relies on, directly
    // or not, is proved too (mutual assumptions are fine: together they are one invariant).
    std::set<std::string> seen{path};
    std::vector<std::string> todo = relies_on[path];
    while (r.result == "proved" && !todo.empty()) {
      std::string p = todo.back();
      todo.pop_back();
      if (!seen.insert(p).second) continue;
      const ProofResult& dep = own[p];
      if (dep.result != "proved") {
        r.result = dep.result;
        r.message = ASSUMED_FAILED + dep.spec + ", which is " + dep.result + ": " + dep.message;
        r.counterexample = dep.counterexample;
      }
      for (const std::string& q : relies_on[p]) todo.push_back(q);
    }
    results.push_back(r);
  }
  return results;
}

ProofResult refute_batch_mutant(const std::vector<std::string>& spec_files, const std::string& mutant) {
  // The first spec refuting the mutant by a counterexample of its own settles it; one
  // refuted only through an assumption, or malformed, counts when nothing else does.
  ProofResult verdict, fallback;
  verdict.mutant = fallback.mutant = mutant;
  fallback.result = "proved";
  fallback.message = "every spec holds with the mutant: none refutes it";
  double seconds = 0;
  for (const std::string& file : spec_files) {
    ProofResult r = prove_specs({file}, mutant)[0];
    seconds += r.seconds;
    if (r.result == "refuted" && r.message.compare(0, ASSUMED_FAILED.size(), ASSUMED_FAILED) != 0) {
      verdict = r;
      break;
    }
    if (r.result != "proved" && fallback.result == "proved") fallback = r;
  }
  if (verdict.result.empty()) verdict = fallback;
  verdict.seconds = seconds;
  return verdict;
}

std::vector<ProofResult> refute_batch_mutants(const std::vector<std::string>& spec_files) {
  std::vector<ProofResult> out;
  for (const std::string& mutant : batch_mutant_names()) out.push_back(refute_batch_mutant(spec_files, mutant));
  return out;
}

std::vector<std::string> proved_on_patch(const std::vector<std::string>& spec_files,
                                         const std::vector<ProofResult>& results, std::vector<std::string>* not_proved) {
  std::vector<std::string> proved;
  for (size_t i = 0; i < spec_files.size() && i < results.size(); i++) {
    if (results[i].result == "proved") proved.push_back(spec_files[i]);
    else not_proved->push_back(results[i].spec);
  }
  return proved;
}
