// The specs evaluated on concrete states that exploration reaches. Exploration calls this
// often, so the parsed specs, the solver and the states already found correct are kept
// between calls (keyed by the spec files' contents) and most states cost one simplify.
#include <z3++.h>
#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_set>
#include "proofs/prover.hpp"
#include "proofs/spec_file.hpp"
#include "proofs/state_text.hpp"

namespace {

struct ParsedSpec {
  std::string name;
  z3::expr inv;
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
      if (!spec.is_trace()) specs_.push_back({spec.name, inv});
    }
  }

  bool check(const BatchSnapshot& s, std::string* violated, std::string* message) {
    if (!error_.empty()) {
      *violated = bad_spec_;
      *message = error_;
      return false;
    }
    std::string key = key_of(s);
    if (passed_.count(key)) return true;
    BatchState concrete = terms_of(s);
    for (const ParsedSpec& spec : specs_) {
      z3::expr holds = spec_at(spec.inv, voc_, concrete).simplify();
      if (holds.is_true()) continue;
      std::string why = "violated";
      if (!holds.is_false()) {
        solver_.push();
        solver_.add(!holds);
        z3::check_result r = solver_.check();
        solver_.pop();
        if (r == z3::unsat) continue;
        if (r == z3::unknown) why = "could not be decided (" + solver_.reason_unknown() + ")";
      }
      StateNamer names;
      *violated = spec.name;
      *message = "spec " + spec.name + " " + why + " in state\n" + format_state(state_of_snapshot(s), names, "  ");
      return false;
    }
    if (passed_.size() > MAX_REMEMBERED) passed_.clear();
    passed_.insert(key);
    return true;
  }

 private:
  static std::string key_of(const BatchSnapshot& s) {
    std::vector<int> v = {s.count, s.nvmas, s.lock_round_trips, s.finalized, s.appends, s.removals};
    for (const int* a : {s.vm_file, s.added, s.removed, s.append_seq, s.remove_seq}) v.insert(v.end(), a, a + SNAPSHOT_MAX_VMAS);
    v.insert(v.end(), s.vmas, s.vmas + BATCH_SLOTS);
    v.insert(v.end(), s.f_mapping, s.f_mapping + SNAPSHOT_MAX_FILES);
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int));
  }

  // An array that is dflt everywhere except at the given indices.
  z3::expr array_of(const int* values, int n, int dflt) {
    z3::expr a = z3::const_array(c_.int_sort(), c_.int_val(dflt));
    for (int i = 0; i < n; i++)
      if (values[i] != dflt) a = z3::store(a, i, values[i]);
    return a;
  }

  BatchState terms_of(const BatchSnapshot& s) {
    int nvmas = std::min(std::max(s.nvmas, 0), SNAPSHOT_MAX_VMAS);
    BatchState t(c_);
    t.count = c_.int_val(s.count);
    t.vmas = array_of(s.vmas, BATCH_SLOTS, -1);
    t.vm_file = array_of(s.vm_file, nvmas, 0);
    t.f_mapping = array_of(s.f_mapping, SNAPSHOT_MAX_FILES, 0);
    t.added = array_of(s.added, nvmas, 0);
    t.removed = array_of(s.removed, nvmas, 0);
    t.lock_round_trips = c_.int_val(s.lock_round_trips);
    t.finalized = c_.bool_val(s.finalized);
    t.appends = c_.int_val(s.appends);
    t.append_seq = array_of(s.append_seq, nvmas, 0);
    t.removals = c_.int_val(s.removals);
    t.remove_seq = array_of(s.remove_seq, nvmas, 0);
    return t;
  }

  static const size_t MAX_REMEMBERED = 1 << 20;
  z3::context c_;
  Vocabulary voc_;
  z3::solver solver_;
  std::vector<ParsedSpec> specs_;
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
                                std::string* violated_spec, std::string* message) {
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
    for (const BatchSnapshot& s : states)
      if (!checker->check(s, violated_spec, message)) return false;
    return true;
  } catch (const z3::exception& e) {
    checker.reset();
    *violated_spec = "";
    *message = std::string("Z3: ") + e.msg();
    return false;
  }
}
