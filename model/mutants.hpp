// The registry of seeded bugs (mutants). Each is one named switch, off by default.
#pragma once
#include <string>
#include <vector>

enum class Mutant {
  none,
#define MUTANT(name, description, caught_by, kind) name,
#include "model/mutants.def"
#undef MUTANT
};

struct MutantInfo {
  Mutant id;
  const char* name;
  const char* description;
  const char* caught_by;  // scenario that must find it
  const char* kind;       // failure kind it must be reported as
};

const std::vector<MutantInfo>& all_mutants();
const MutantInfo* find_mutant(const std::string& name);

// The mutant switched on for the current exploration; constant during a search.
extern Mutant g_active_mutant;
// Whether the active mutant's switch was reached (and so changed something) since the driver
// cleared it: code taken from a kernel tree (vmaverify kernel) has no switches.
extern bool g_active_mutant_reached;
inline bool mutant(Mutant m) {
  if (g_active_mutant != m) return false;
  g_active_mutant_reached = true;
  return true;
}
