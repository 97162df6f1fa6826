#include "model/mutants.hpp"

Mutant g_active_mutant = Mutant::none;
bool g_active_mutant_reached = false;

const std::vector<MutantInfo>& all_mutants() {
  static const std::vector<MutantInfo> list = {
#define MUTANT(name, description, caught_by, kind) {Mutant::name, #name, description, caught_by, kind},
#include "model/mutants.def"
#undef MUTANT
  };
  return list;
}

const MutantInfo* find_mutant(const std::string& name) {
  for (const MutantInfo& m : all_mutants())
    if (name == m.name) return &m;
  return nullptr;
}
