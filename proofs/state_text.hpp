// Concrete batch states, from a Z3 model or from a snapshot, printed for people:
//   count=3 vmas=[1,2,5] lock_round_trips=0 finalized=false
//   vm_file: 1->A 2->A 5->B (others anon)   f_mapping: A->M1 B->M1 ...
#pragma once
#include <z3++.h>
#include <map>
#include <set>
#include <string>
#include <vector>
#include "proofs/batch_state.hpp"
#include "proofs/batch_system.hpp"

struct ConcreteState {
  struct Column {  // an (Array Int Int) at the ids worth showing, and its value elsewhere
    std::map<long long, long long> at;
    bool has_default = false;
    long long dflt = 0;
  };
  long long count = 0, lock_round_trips = 0, appends = 0, removals = 0;
  bool finalized = false;
  std::vector<long long> slots;  // vmas[0..count)
  std::set<long long> focus;     // VMAs shown even where their values are the default ones
  Column vm_file, f_mapping, added, removed, append_seq, remove_seq;
};

// Names file ids A, B, ... (0 is anon) and mapping ids M1, M2, ... in order of first use,
// consistently across the states of one counterexample.
class StateNamer {
 public:
  std::string file(long long id);
  std::string mapping(long long id);

 private:
  std::map<long long, std::string> files_, mappings_;
};

std::string format_state(const ConcreteState& s, StateNamer& names, const std::string& indent);

// The state s denotes in model m; focus names VMAs to show besides those in the batch, and
// with only_focus no others (a trace's layout outside the teardown is noise).
ConcreteState state_in_model(const z3::model& m, const BatchState& s, const std::vector<z3::expr>& focus,
                             bool only_focus = false);
ConcreteState state_of_snapshot(const BatchSnapshot& s);
long long model_int(const z3::model& m, const z3::expr& e);
