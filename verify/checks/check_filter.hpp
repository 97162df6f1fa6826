// `all --only PATTERN` / `--skip PATTERN`: which checks run. A check is named
// GROUP/SCENARIO[/MUTANT] (e.g. mutants/teardown_vs_rmap_walk/final_after_free_pgd_range,
// baselines/teardown_vs_truncate, proofs/(every spec)); a shell glob selects a check when it
// matches that name or any one part of it (`mutants`, `rwsem_*`, `*/teardown_*`).
#pragma once
#include <string>
#include <vector>
#include "verify/checks/all.hpp"

std::string check_id(const std::string& group, const Outcome& planned);

struct CheckFilter {
  std::vector<std::string> only, skip;
  // Selected: matched by some --only pattern (or there are none) and by no --skip pattern.
  bool selects(const std::string& id) const;
  // "" when every pattern matches some check of `ids`; else the error naming the first that does not.
  std::string unmatched(const std::vector<std::string>& ids) const;
};
