// vmaverify list: the scenarios and mutants.
#include <cstdio>
#include "model/mutants.hpp"
#include "verify/cli.hpp"
#include "verify/json.hpp"
#include "verify/scenario.hpp"

static int cmd_list(const std::vector<std::string>& in) {
  Args a;
  std::string err;
  if (!parse_args(in, {}, {"--json"}, &a, &err)) return usage_error("list: " + err);
  if (!a.positional.empty()) return usage_error("list: unexpected argument '" + a.positional[0] + "'");
  if (a.has("--json")) {
    std::string s = "{\"scenarios\": [", m;
    for (const Scenario& x : all_scenarios())
      s += (s.back() == '[' ? "" : ", ") +
           JsonObject().str("name", x.name).str("description", x.description).str("search", x.search).done();
    s += "], \"mutants\": [";
    for (const MutantInfo& x : all_mutants())
      s += (s.back() == '[' ? "" : ", ") + JsonObject()
                                               .str("name", x.name)
                                               .str("description", x.description)
                                               .str("caught_by", x.caught_by)
                                               .str("kind", x.kind)
                                               .done();
    std::printf("%s]}\n", s.c_str());
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

static CommandRegistrar reg({"list", "list [--json]", &cmd_list});
