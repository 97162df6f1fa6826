// Induction for invariant specs, bounded unrolling for trace specs, and the bookkeeping of
// "; assumes:" so that a proof relying on another spec is only as good as that spec.
#include "proofs/prover.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include "proofs/batch_system.hpp"
#include "proofs/spec_file.hpp"
#include "proofs/state_text.hpp"

namespace fs = std::filesystem;

static const unsigned SOLVER_TIMEOUT_MS = 60000;

std::vector<std::string> default_spec_files() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(VMAVERIFY_SPECS_DIR, ec))
    if (e.path().extension() == ".smt2") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> batch_mutant_names() {
  std::vector<std::string> names;
  for (const BatchMutantInfo& m : batch_mutants()) names.push_back(m.name);
  return names;
}

static z3::solver make_solver(z3::context& c) {
  z3::solver s = getenv("TACTIC") ? (z3::tactic(c, "simplify") & z3::tactic(c, "propagate-values") & z3::tactic(c, "solve-eqs") & z3::tactic(c, "elim-uncnstr") & z3::tactic(c, "smt")).mk_solver() : z3::solver(c);
  z3::params p(c);
  if (getenv("ARITH")) p.set("arith.solver", (unsigned)atoi(getenv("ARITH")));
  p.set("timeout", SOLVER_TIMEOUT_MS);
  s.set(p);
  return s;
}

static ProofResult error_result(const Spec& spec, const std::string& mutant, const std::string& message) {
  ProofResult r;
  r.spec = spec.name;
  r.mutant = mutant;
  r.result = "error";
  r.message = message;
  r.method = spec.is_trace() ? "trace:" + std::to_string(spec.trace_length) : "induction";
  return r;
}

// sat: a counterexample; unsat: none; unknown: an error naming Z3's reason.
static z3::check_result check_negation(z3::solver& s, const z3::expr& hypotheses, const z3::expr& goal,
                                       std::string* unknown_reason) {
  s.push();
  z3::expr q = hypotheses && !goal;
  if (getenv("SIMP")) { z3::params p(s.ctx()); p.set("expand_select_store", true); p.set("pull_cheap_ite", true); p.set("ite_extra_rules", true); q = q.simplify(p); }
  s.add(q);
  if (getenv("DUMP")) { FILE* f = fopen(getenv("DUMP"), "w"); fputs(s.to_smt2().c_str(), f); fclose(f); }
  z3::check_result r = s.check();
  if (r == z3::unknown) *unknown_reason = s.reason_unknown();
  return r;
}

static std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

// Holds after init, and is preserved by add, process and final from any state (with 0 <=
// count <= 8, the C array) where it and its assumptions hold.
static ProofResult prove_by_induction(z3::context& c, const Spec& spec, const Vocabulary& voc, const z3::expr& inv,
                                      const std::vector<z3::expr>& assumed, BatchMutant mutant, ProofResult r) {
  BatchSystem sys(c, mutant);
  z3::solver solver = make_solver(c);
  std::string unknown;
  StateNamer names;

  BatchState init = sys.initial(fresh_state(c, "init."));
  z3::check_result base = check_negation(solver, c.bool_val(true), spec_at(inv, voc, init), &unknown);
  if (base == z3::sat) {
    r.result = "refuted";
    r.message = "does not hold after init";
    r.counterexample = "after init:\n" + format_state(state_in_model(solver.get_model(), init, {}), names, "  ");
    return r;
  }
  if (base == z3::unknown) return error_result(spec, r.mutant, spec.path + ": Z3 could not decide init (" + unknown + ")");
  solver.pop();

  BatchState pre = fresh_state(c, "pre.");
  z3::expr hypotheses = sys.in_bounds(pre) && spec_at(inv, voc, pre);
  for (const z3::expr& a : assumed) hypotheses = hypotheses && spec_at(a, voc, pre);
  z3::expr vma = c.int_const("vma");
  struct Step {
    std::string name;
    z3::expr guard;
    BatchState post;
  };
  const Step steps[] = {{"add", sys.add_guard(pre, vma), sys.add(pre, vma)},
                        {"process", sys.process_guard(pre), sys.process(pre)},
                        {"final", c.bool_val(true), sys.finalize(pre)}};
  for (const Step& step : steps) {
    z3::check_result res = check_negation(solver, hypotheses && step.guard, spec_at(inv, voc, step.post), &unknown);
    if (res == z3::sat) {
      z3::model m = solver.get_model();
      std::string call = step.name == "add" ? "add(vma " + std::to_string(model_int(m, vma)) + ")" : step.name;
      r.result = "refuted";
      r.message = "not preserved by " + step.name;
      std::vector<z3::expr> focus;
      if (step.name == "add") focus.push_back(vma);
      r.counterexample = "from state\n" + format_state(state_in_model(m, pre, focus), names, "  ") + "step " + call +
                         " gives\n" + format_state(state_in_model(m, step.post, focus), names, "  ");
      return r;
    }
    if (res == z3::unknown) return error_result(spec, r.mutant, spec.path + ": Z3 could not decide " + step.name +
                                                                   " (" + unknown + ")");
    solver.pop();
  }
  r.result = "proved";
  r.message = "holds after init; preserved by add, process, final" +
              (spec.assumes.empty() ? std::string() : " assuming " + join(spec.assumes));
  return r;
}

// Names of the constants a formula reads (helpers it calls must read none: see spec_file.hpp).
static std::set<std::string> constants_read(const z3::expr& e) {
  std::set<std::string> names;
  std::set<unsigned> seen;
  std::vector<z3::expr> todo{e};
  while (!todo.empty()) {
    z3::expr x = todo.back();
    todo.pop_back();
    if (!seen.insert(x.id()).second) continue;
    if (x.is_quantifier()) {
      todo.push_back(x.body());
    } else if (x.is_app()) {
      if (x.is_const() && x.decl().decl_kind() == Z3_OP_UNINTERPRETED) names.insert(x.decl().name().str());
      for (unsigned i = 0; i < x.num_args(); i++) todo.push_back(x.arg(i));
    }
  }
  return names;
}

// Holds after init, add(seq[0]), ..., add(seq[n-1]), final for every n <= N and every layout.
static ProofResult prove_on_traces(z3::context& c, const Spec& spec, const Vocabulary& voc, const z3::expr& prop,
                                   BatchMutant mutant, ProofResult r) {
  const int N = spec.trace_length;
  BatchSystem sys(c, mutant, N);
  z3::solver solver = make_solver(c);
  // The state is built as terms of the layout (the vocabulary's vm_file, f_mapping) and the
  // teardown (n, seq); only the end-state fields the spec reads are tied to its names, so
  // Z3 never sees the fields that cannot matter.
  BatchState free = voc.state;
  free.vmas = c.constant("uninitialised_vmas", field_sort(c, FieldSort::IntArray));
  BatchState s = sys.initial(free);
  z3::expr trace = 0 <= voc.n && voc.n <= N && (getenv("FIXN") ? voc.n == N : c.bool_val(true));
  for (int i = 0; i < N; i++) {
    z3::expr vma = z3::select(voc.seq, i);
    z3::expr taken = c.int_val(i) < voc.n;
    if (!getenv("NOGUARD")) trace = trace && z3::implies(taken, sys.add_guard(s, vma));
    s = ite(taken, sys.add(s, vma), s);
  }
  BatchState end = sys.finalize(s);
  std::set<std::string> read = constants_read(prop);
  for (const StateField& f : state_fields())
    if (read.count(f.name)) trace = trace && voc.state.*f.member == end.*f.member;
  std::string unknown;
  z3::check_result res = check_negation(solver, trace, prop, &unknown);
  if (res == z3::unknown) return error_result(spec, r.mutant, spec.path + ": Z3 could not decide (" + unknown + ")");
  if (res == z3::sat) {
    z3::model m = solver.get_model();
    StateNamer names;
    std::string adds;
    std::vector<z3::expr> focus;
    for (long long i = 0, n = model_int(m, voc.n); i < n; i++) {
      z3::expr vma = z3::select(voc.seq, c.int_val((int64_t)i));
      focus.push_back(vma);
      adds += "add(" + std::to_string(model_int(m, vma)) + ": " +
              names.file(model_int(m, z3::select(voc.state.vm_file, vma))) + ") ";
    }
    r.result = "refuted";
    r.message = "fails after a teardown of " + std::to_string(model_int(m, voc.n)) + " VMAs";
    r.counterexample = "init " + adds + "final gives\n" + format_state(state_in_model(m, end, focus), names, "  ");
    return r;
  }
  r.result = "proved";
  r.message = "holds after every teardown of at most " + std::to_string(N) + " VMAs";
  return r;
}

// Where "; assumes: NAME" finds NAME.smt2: beside the spec, then among the default specs.
static std::string find_assumed(const Spec& spec, const std::string& name) {
  for (const fs::path& dir : {fs::path(spec.path).parent_path(), fs::path(VMAVERIFY_SPECS_DIR)}) {
    fs::path p = dir / (name + ".smt2");
    if (fs::exists(p)) return p.string();
  }
  return "";
}

// The spec's own proof, taking its direct assumptions as hypotheses.
static ProofResult own_proof(const Spec& spec, const std::string& mutant_name) {
  auto start = std::chrono::steady_clock::now();
  ProofResult r = error_result(spec, mutant_name, "");
  BatchMutant mutant;
  if (!find_batch_mutant(mutant_name, &mutant)) return error_result(spec, mutant_name, "unknown batch mutant '" + mutant_name + "'");
  try {
    z3::context c;
    Vocabulary voc(c, spec.is_trace());
    z3::expr inv(c);
    std::string err;
    if (!parse_spec(c, spec, voc, &inv, &err)) return error_result(spec, mutant_name, err);
    if (spec.is_trace()) {
      if (!spec.assumes.empty())
        return error_result(spec, mutant_name, spec.path + ":" + std::to_string(spec.assumes_line) +
                                                   ": a trace spec starts from init and assumes nothing");
      r = prove_on_traces(c, spec, voc, inv, mutant, r);
    } else {
      std::vector<z3::expr> assumed;
      for (const std::string& name : spec.assumes) {
        Spec a;
        z3::expr e(c);
        std::string at = spec.path + ":" + std::to_string(spec.assumes_line) + ": assumed spec '" + name + "'";
        std::string path = find_assumed(spec, name);
        if (path.empty()) return error_result(spec, mutant_name, at + " not found");
        if (!load_spec(path, &a, &err) || !parse_spec(c, a, voc, &e, &err))
          return error_result(spec, mutant_name, at + ": " + err);
        if (a.is_trace()) return error_result(spec, mutant_name, at + " is a trace spec, not an invariant");
        assumed.push_back(e);
      }
      r = prove_by_induction(c, spec, voc, inv, assumed, mutant, r);
    }
  } catch (const z3::exception& e) {
    r = error_result(spec, mutant_name, spec.path + ": Z3: " + e.msg());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<ProofResult> prove_specs(const std::vector<std::string>& spec_files, const std::string& mutant) {
  std::map<std::string, ProofResult> own;      // by path
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
        r.message = "proved assuming " + dep.spec + ", which is " + dep.result + ": " + dep.message;
        r.counterexample = dep.counterexample;
      }
      for (const std::string& q : relies_on[p]) todo.push_back(q);
    }
    results.push_back(r);
  }
  return results;
}

std::vector<ProofResult> refute_batch_mutants(const std::vector<std::string>& spec_files) {
  std::vector<ProofResult> out;
  for (const std::string& mutant : batch_mutant_names()) {
    std::vector<ProofResult> results = prove_specs(spec_files, mutant);
    // Prefer a spec refuted by its own counterexample over one refuted through an assumption.
    auto pick = [&](const std::function<bool(const ProofResult&)>& ok) -> const ProofResult* {
      for (const ProofResult& r : results)
        if (ok(r)) return &r;
      return nullptr;
    };
    const ProofResult* verdict = pick([](const ProofResult& r) {
      return r.result == "refuted" && r.message.compare(0, 16, "proved assuming ") != 0;
    });
    if (!verdict) verdict = pick([](const ProofResult& r) { return r.result != "proved"; });
    ProofResult v;
    if (verdict) {
      v = *verdict;
    } else {
      v.mutant = mutant;
      v.result = "proved";
      v.message = "every spec holds with the mutant: none refutes it";
    }
    v.seconds = 0;
    for (const ProofResult& r : results) v.seconds += r.seconds;
    out.push_back(v);
  }
  return out;
}
