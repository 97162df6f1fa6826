// vmaverify list: the scenarios and mutants.
#include <cstdio>
#include <memory>
#include <CLI/CLI.hpp>
#include "model/mutants.hpp"
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"
#include "verify/search/scenario.hpp"

// Schema: {"scenarios": [{name, description, search}], "mutants": [{name, description, caught_by, kind}]}.
static Json list_json() {
  Json j = {{"scenarios", Json::array()}, {"mutants", Json::array()}};
  for (const Scenario& x : all_scenarios())
    j["scenarios"].push_back({{"name", x.name}, {"description", x.description}, {"search", x.search}});
  for (const MutantInfo& x : all_mutants())
    j["mutants"].push_back(
        {{"name", x.name}, {"description", x.description}, {"caught_by", x.caught_by}, {"kind", x.kind}});
  return j;
}

static int list(bool json) {
  if (json) {
    std::printf("%s\n", json_line(list_json()).c_str());
    return EXIT_VERIFIED;
  }
  std::printf("scenarios:\n");
  for (const Scenario& x : all_scenarios())
    std::printf("  %-34s %-9s %s\n", x.name.c_str(), x.search.c_str(), x.description.c_str());
  std::printf("mutants:\n");
  for (const MutantInfo& x : all_mutants())
    std::printf("  %-34s caught by %s as %s: %s\n", x.name, x.caught_by, x.kind, x.description);
  return EXIT_VERIFIED;
}

static CommandRun define_list(CLI::App& cmd) {
  auto json = std::make_shared<bool>(false);
  cmd.add_flag("--json", *json, "print one JSON object: {scenarios: [...], mutants: [...]}");
  return [json] { return list(*json); };
}

static CommandRegistrar reg({"list", "The scenarios with their search, the mutants with the scenario that catches each.",
                             &define_list});
