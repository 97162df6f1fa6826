#include "verify/search/relacy_state.hpp"

#include <vector>

namespace {

// Decimal numbers separated by blanks, each below 10^9. False on anything else.
bool numbers(const std::string& s, std::vector<unsigned long>* out, std::string* why) {
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ' ') {
      i++;
      continue;
    }
    size_t start = i;
    unsigned long v = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; i++) {
      if (i - start == 9) {
        *why = "number " + std::to_string(out->size() + 1) + " has more than 9 digits";
        return false;
      }
      v = v * 10 + (unsigned long)(s[i] - '0');
    }
    if (i == start || (i < s.size() && s[i] != ' ')) {
      *why = "not blank-separated decimal numbers";
      return false;
    }
    if (out->size() > 2 + 3 * kMaxStateNodes) {
      *why = "more than " + std::to_string(kMaxStateNodes) + " decision nodes";
      return false;
    }
    out->push_back(v);
  }
  return true;
}

bool count_possible(unsigned long type, unsigned long count, unsigned threads) {
  switch (type) {
    case 0: return count >= 1 && count <= threads;
    case 1: return count == 2;
    case 2:
    case 3: return count == 2 || count == 4;
    case 4: return count >= 1 && count <= 4UL * threads;
    default: return false;
  }
}

}  // namespace

bool relacy_state_valid(const std::string& state, const SearchSpec& search, unsigned threads, std::string* why) {
  std::vector<unsigned long> v;
  if (!numbers(state, &v, why)) return false;
  if (v.empty()) {
    *why = "empty";
    return false;
  }
  if (search.kind == SearchSpec::Kind::random) {
    if (v.size() != 1) {
      *why = "a random search saves one number, the iteration";
      return false;
    }
    if (v[0] == 0 || v[0] > search.n) {  // Relacy numbers iterations from 1
      *why = "iteration " + std::to_string(v[0]) + " is not one of the search's 1.." + std::to_string(search.n);
      return false;
    }
    return true;
  }
  if (v.size() < 2 || v[1] > kMaxStateNodes || v.size() != 2 + 3 * v[1]) {
    *why = "not an iteration, a node count and three numbers per node";
    return false;
  }
  for (size_t i = 2, node = 0; i < v.size(); i += 3, node++) {
    const unsigned long count = v[i], index = v[i + 1], type = v[i + 2];
    if (type > 4 || !count_possible(type, count, threads) || index >= count) {
      *why = "node " + std::to_string(node) + " (" + std::to_string(count) + " " + std::to_string(index) + " " +
             std::to_string(type) + ") is not a decision of a scenario with " + std::to_string(threads) + " threads";
      return false;
    }
  }
  return true;
}
