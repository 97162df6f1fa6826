#include "verify/checks/all.hpp"
#include <unistd.h>
#include <algorithm>

#include "model/mutants.hpp"
#include "verify/checks/check_filter.hpp"
#include "verify/search/scenario.hpp"

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

static Check check(Outcome on_crash, std::function<Outcome()> run) {
  return {on_crash, [run](const OutcomeSink& sink) { sink(run()); }};
}

static Outcome planned(const std::string& scenario, const std::string& mutant, bool unbatched, const std::string& expected) {
  Outcome o;
  o.r.scenario = scenario;
  o.r.mutant = mutant;
  o.r.variant = unbatched ? "unbatched" : "batched";
  o.expected = expected;
  return o;
}

// Every scenario must verify under its own search on the correct model.
static std::vector<Check> scenario_checks(bool progress) {
  std::vector<Check> v;
  for (const Scenario& s : all_scenarios())
    v.push_back(check(planned(s.name, "none", false, "verified"), [&s, progress] { return expect_verified(s, progress, false); }));
  return v;
}

// Every mutant must be caught by its scenario, with the kind of failure it names.
static Outcome expect_caught(const MutantInfo& m, bool progress) {
  const Scenario* s = find_scenario(m.caught_by);
  Outcome out = planned(m.caught_by, m.name, false, std::string("counterexample (") + m.kind + ")");
  if (!s) {
    out.r.result = "error";
    out.r.message = std::string("mutant names unknown scenario '") + m.caught_by + "'";
  } else {
    RunOptions o;
    o.mutant = m.name;
    o.progress = progress;
    out.r = run_scenario(*s, o, false);
    out.as_expected = out.r.result == "counterexample" && out.r.kind == m.kind;
  }
  return out;
}

static std::vector<Check> mutant_checks(bool progress) {
  std::vector<Check> v;
  for (const MutantInfo& m : all_mutants())
    v.push_back(check(planned(m.caught_by, m.name, false, std::string("counterexample (") + m.kind + ")"),
                      [&m, progress] { return expect_caught(m, progress); }));
  return v;
}

// The pre-patch teardown must verify on the same scenarios.
static std::vector<Check> baseline_checks(bool progress) {
  std::vector<Check> v;
  for (const Scenario& s : all_scenarios())
    if (s.baseline)
      v.push_back(check(planned(s.name, "none", true, "verified"), [&s, progress] { return expect_verified(s, progress, true); }));
  return v;
}

static CheckGroupRegistrar scenarios_group({"scenarios", &scenario_checks});
static CheckGroupRegistrar baselines_group({"baselines", &baseline_checks});
static CheckGroupRegistrar mutants_group({"mutants", &mutant_checks});

// Two checks at a time on a machine of two cores or more: each is one search, single-threaded.
int all_jobs() { return (int)std::max(1L, std::min(sysconf(_SC_NPROCESSORS_ONLN), 2L)); }

void run_all_checks(bool progress, const OutcomeSink& sink, const std::function<bool(const std::string&)>& selected,
                    const std::function<void(const std::string&, double)>& finished) {
  std::vector<Check> checks;
  std::vector<const char*> group_of;
  std::vector<std::string> ids;
  for (const CheckGroup& g : groups())
    for (const Check& c : g.checks(progress)) {
      if (selected && !selected(check_id(g.name, c.on_crash))) continue;
      checks.push_back(c);
      group_of.push_back(g.name);
      ids.push_back(check_id(g.name, c.on_crash));
    }
  run_checks_isolated(
      checks, all_jobs(),
      [&](size_t i, const Outcome& o) {
        Outcome tagged = o;
        tagged.group = group_of[i];
        sink(tagged);
      },
      [&](size_t i, double seconds) {
        if (finished) finished(ids[i], seconds);
      });
}

std::vector<std::string> all_check_ids() {
  std::vector<std::string> ids;
  for (const CheckGroup& g : groups())
    for (const Check& c : g.checks(false)) ids.push_back(check_id(g.name, c.on_crash));
  return ids;
}
