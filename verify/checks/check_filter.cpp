#include "verify/checks/check_filter.hpp"

#include <fnmatch.h>
#include <sstream>

std::string check_id(const std::string& group, const Outcome& planned) {
  std::string id = group + "/" + planned.r.scenario;
  if (!planned.r.mutant.empty() && planned.r.mutant != "none") id += "/" + planned.r.mutant;
  return id;
}

static bool matches(const std::string& pattern, const std::string& id) {
  if (fnmatch(pattern.c_str(), id.c_str(), 0) == 0) return true;
  std::istringstream parts(id);
  for (std::string part; std::getline(parts, part, '/');)
    if (fnmatch(pattern.c_str(), part.c_str(), 0) == 0) return true;
  return false;
}

static bool any_matches(const std::vector<std::string>& patterns, const std::string& id) {
  for (const std::string& p : patterns)
    if (matches(p, id)) return true;
  return false;
}

bool CheckFilter::selects(const std::string& id) const {
  return (only.empty() || any_matches(only, id)) && !any_matches(skip, id);
}

std::string CheckFilter::unmatched(const std::vector<std::string>& ids) const {
  for (const auto* list : {&only, &skip})
    for (const std::string& p : *list) {
      bool hit = false;
      for (const std::string& id : ids) hit = hit || matches(p, id);
      if (!hit)
        return std::string(list == &only ? "--only " : "--skip ") + "pattern \"" + p +
               "\" matches no check (checks are named GROUP/SCENARIO[/MUTANT])";
    }
  // A selection of nothing would end "0 checked" with exit 0: a verdict on nothing.
  bool any = false;
  for (const std::string& id : ids) any = any || selects(id);
  if (!any && !ids.empty()) return "--only and --skip together select no check: nothing would be verified";
  return "";
}
