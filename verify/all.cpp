#include "verify/all.hpp"

#include "model/mutants.hpp"
#include "verify/scenario.hpp"

static std::vector<CheckGroup>& groups() {
  static std::vector<CheckGroup> list;
  return list;
}
CheckGroupRegistrar::CheckGroupRegistrar(CheckGroup g) { groups().push_back(g); }

// Run a scenario under its own search (batched or the unbatched baseline); it must verify.
static Outcome expect_verified(const Scenario& s, bool progress, bool unbatched) {
  RunOptions o;
  o.progress = progress;
  o.unbatched = unbatched;
  Outcome out;
  out.r = run_scenario(s, o, false);
  out.expected = "verified";
  out.as_expected = out.r.result == "verified";
  return out;
}

// Every scenario must verify under its own search on the correct model.
static void run_scenarios(bool progress, const OutcomeSink& sink) {
  for (const Scenario& s : all_scenarios()) sink(expect_verified(s, progress, false));
}

// Every mutant must be caught by its scenario, with the kind of failure it names.
static void run_mutants(bool progress, const OutcomeSink& sink) {
  for (const MutantInfo& m : all_mutants()) {
    const Scenario* s = find_scenario(m.caught_by);
    Outcome out;
    out.expected = std::string("counterexample (") + m.kind + ")";
    if (!s) {
      out.r.scenario = m.caught_by;
      out.r.mutant = m.name;
      out.r.result = "error";
      out.r.message = std::string("mutant names unknown scenario '") + m.caught_by + "'";
    } else {
      RunOptions o;
      o.mutant = m.name;
      o.progress = progress;
      out.r = run_scenario(*s, o, false);
      out.as_expected = out.r.result == "counterexample" && out.r.kind == m.kind;
    }
    sink(out);
  }
}

// The pre-patch teardown must verify on the same scenarios.
static void run_baselines(bool progress, const OutcomeSink& sink) {
  for (const Scenario& s : all_scenarios())
    if (s.baseline) sink(expect_verified(s, progress, true));
}

static CheckGroupRegistrar scenarios_group({"scenarios", &run_scenarios});
static CheckGroupRegistrar baselines_group({"baselines", &run_baselines});
static CheckGroupRegistrar mutants_group({"mutants", &run_mutants});

void run_all_checks(bool progress, const OutcomeSink& sink) {
  for (const CheckGroup& g : groups())
    g.run(progress, [&](const Outcome& o) {
      Outcome tagged = o;
      tagged.group = g.name;
      sink(tagged);
    });
}
