// The specs evaluated on concrete states that exploration reaches. Exploration calls this
// often, so everything is prepared once per set of spec files (keyed by their contents):
// each spec is compiled for the solver-free interpreter of concrete_eval.hpp, and only a
// spec outside its fragment goes to Z3 (about a millisecond a state). States already found
// correct are remembered.
#include <z3++.h>
#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_set>
#include "proofs/concrete_eval.hpp"
#include "proofs/prover.hpp"
#include "proofs/spec_file.hpp"
#include "proofs/state_text.hpp"

namespace {

struct CheckedSpec {
  std::string name;
  z3::expr inv;
  bool compiled;
  CompiledFormula formula;
};

class StateChecker {
 public:
  explicit StateChecker(const std::vector<std::string>& files) : voc_(c_, false), solver_(c_) {
    for (const std::string& path : files) {
      Spec spec;
      z3::expr inv(c_);
      std::string err;
      if (!load_spec(path, &spec, &err) || (!spec.is_trace() && !parse_spec(c_, spec, voc_, &inv, &err))) {
        bad_spec_ = spec.name.empty() ? path : spec.name;
        error_ = err;
        return;
      }
      if (spec.is_trace()) continue;  // about whole teardowns, not states
      CheckedSpec checked{spec.name, inv, false, {}};
      checked.compiled = CompiledFormula::compile(inv, &checked.formula, &err);
      specs_.push_back(checked);
    }
  }

  // False at the first violation: states in order, specs in order.
  bool check(const std::vector<BatchSnapshot>& states, std::string* violated, std::string* message, bool* malformed) {
    if (!error_.empty()) {
      *violated = bad_spec_;
      *message = error_;
      if (malformed) *malformed = true;
      return false;
    }
    for (const BatchSnapshot& s : states) {
      std::string key = key_of(s);
      if (passed_.count(key)) continue;
      ConcreteValues values = values_of(s);
      for (const CheckedSpec& spec : specs_) {
        bool holds = false;
        z3::check_result r = spec.compiled && spec.formula.evaluate(values, &holds) ? (holds ? z3::sat : z3::unsat)
                                                                                    : solve(spec, s);
        if (r == z3::sat) continue;
        StateNamer names;
        *violated = spec.name;
        *message = "spec " + spec.name + (r == z3::unsat ? " violated" : " could not be decided") + " in state\n" +
                   format_state(state_of_snapshot(s), names, "  ");
        return false;
      }
      if (passed_.size() > MAX_REMEMBERED) passed_.clear();
      passed_.insert(key);
    }
    return true;
  }

 private:
  // sat: the spec holds in s (its negation has no model); unsat: it fails.
  z3::check_result solve(const CheckedSpec& spec, const BatchSnapshot& s) {
    z3::expr e = spec_at(spec.inv, voc_, terms_of(s)).simplify();
    if (e.is_true() || e.is_false()) return e.is_true() ? z3::sat : z3::unsat;
    solver_.push();
    solver_.add(!e);
    z3::check_result r = solver_.check();
    solver_.pop();
    return r == z3::sat ? z3::unsat : r == z3::unsat ? z3::sat : z3::unknown;
  }

  static std::string key_of(const BatchSnapshot& s) {
    std::vector<int> v = {s.count, s.nvmas, s.lock_round_trips, s.finalized, s.appends, s.removals};
    for (const int* a : {s.vm_file, s.added, s.removed, s.append_seq, s.remove_seq})
      v.insert(v.end(), a, a + SNAPSHOT_MAX_VMAS);
    v.insert(v.end(), s.vmas, s.vmas + BATCH_SLOTS);
    v.insert(v.end(), s.f_mapping, s.f_mapping + SNAPSHOT_MAX_FILES);
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int));
  }

  // The snapshot's arrays: dflt everywhere but at the indices it records.
  struct Column {
    const char* name;
    const int* values;
    int size, dflt;
  };
  static std::vector<Column> columns(const BatchSnapshot& s) {
    int nvmas = std::min(std::max(s.nvmas, 0), SNAPSHOT_MAX_VMAS);
    return {{"vmas", s.vmas, BATCH_SLOTS, -1},           {"vm_file", s.vm_file, nvmas, 0},
            {"f_mapping", s.f_mapping, SNAPSHOT_MAX_FILES, 0}, {"added", s.added, nvmas, 0},
            {"removed", s.removed, nvmas, 0},            {"append_seq", s.append_seq, nvmas, 0},
            {"remove_seq", s.remove_seq, nvmas, 0}};
  }

  static ConcreteValues values_of(const BatchSnapshot& s) {
    ConcreteValues v;
    v.ints = {{"count", s.count},     {"lock_round_trips", s.lock_round_trips}, {"finalized", s.finalized},
              {"appends", s.appends}, {"removals", s.removals}};
    for (const Column& c : columns(s)) {
      ConcreteArray& a = v.arrays[c.name];
      a.dflt = c.dflt;
      for (int i = 0; i < c.size; i++)
        if (c.values[i] != c.dflt) a.at[i] = c.values[i];
    }
    return v;
  }

  BatchState terms_of(const BatchSnapshot& s) {
    BatchState t(c_);
    t.count = c_.int_val(s.count);
    t.lock_round_trips = c_.int_val(s.lock_round_trips);
    t.finalized = c_.bool_val(s.finalized);
    t.appends = c_.int_val(s.appends);
    t.removals = c_.int_val(s.removals);
    for (const Column& c : columns(s)) {
      z3::expr a = z3::const_array(c_.int_sort(), c_.int_val(c.dflt));
      for (int i = 0; i < c.size; i++)
        if (c.values[i] != c.dflt) a = z3::store(a, i, c.values[i]);
      for (const StateField& f : state_fields())
        if (c.name == std::string(f.name)) t.*f.member = a;
    }
    return t;
  }

  static const size_t MAX_REMEMBERED = 1 << 20;
  z3::context c_;
  Vocabulary voc_;
  z3::solver solver_;
  std::vector<CheckedSpec> specs_;
  std::string bad_spec_, error_;
  std::unordered_set<std::string> passed_;
};

std::string files_key(const std::vector<std::string>& files) {
  std::string key;
  for (const std::string& path : files) {
    Spec spec;
    std::string err;
    key += path + '\0' + (load_spec(path, &spec, &err) ? spec.text : err) + '\0';
  }
  return key;
}

}  // namespace

bool check_states_against_specs(const std::vector<BatchSnapshot>& states, const std::vector<std::string>& spec_files,
                                std::string* violated_spec, std::string* message, bool* malformed) {
  if (malformed) *malformed = false;
  static std::mutex mutex;
  static std::string cached_key;
  static std::unique_ptr<StateChecker> checker;
  std::lock_guard<std::mutex> lock(mutex);
  try {
    std::string key = files_key(spec_files);
    if (!checker || key != cached_key) {
      checker.reset(new StateChecker(spec_files));
      cached_key = key;
    }
    return checker->check(states, violated_spec, message, malformed);
  } catch (const z3::exception& e) {
    checker.reset();
    if (malformed) *malformed = true;
    *violated_spec = "";
    *message = std::string("Z3: ") + e.msg();
    return false;
  }
}
