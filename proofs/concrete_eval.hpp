// Specs evaluated on concrete states without a solver: a Z3 call costs about a millisecond,
// and exploration checks thousands of states a second.
//
// A formula is compiled once into a small tree and then interpreted over concrete values.
// A quantified Int variable ranges over the state's and the formula's integers, each with
// its neighbours up to +-2 (and false/true for Bool): on a concrete state every array is
// constant away from its stored indices, so a spec that compares its variables with values
// and uses them as indices (with small offsets) changes truth only at those points. Formulas
// outside that fragment (recursive helpers, multiplication of variables, ...) are not
// compiled and are left to Z3.
#pragma once
#include <z3++.h>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct ConcreteArray {
  std::map<long long, long long> at;
  long long dflt = 0;
  long long get(long long i) const {
    auto it = at.find(i);
    return it == at.end() ? dflt : it->second;
  }
};

// Values of the vocabulary's constants, by name.
struct ConcreteValues {
  std::map<std::string, long long> ints;  // Int and Bool constants (Bool as 0/1)
  std::map<std::string, ConcreteArray> arrays;
};

class CompiledFormula {
 public:
  // False (and *why set) when e is outside the fragment the interpreter handles.
  static bool compile(const z3::expr& e, CompiledFormula* out, std::string* why);
  // False when v lacks a value the formula reads (or it divides by zero); else *holds set.
  bool evaluate(const ConcreteValues& v, bool* holds) const;

 private:
  struct Node;
  std::shared_ptr<const std::vector<Node>> nodes_;
  int root_ = -1;
  std::vector<long long> numerals_;  // candidates for quantified variables, with the state's
  friend class Compiler;
  friend class Interpreter;
};
