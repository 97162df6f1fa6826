#include "verify/maps/lhist.hpp"

#include <algorithm>
#include <cstdio>
#include "verify/report/json_out.hpp"

Lhist::Lhist(long min_, long max_, long step_) : min(min_), max(max_), step(step_) {
  buckets.assign((size_t)((max - min) / step + 2), 0);
}

void Lhist::add(long value, long times) {
  size_t i = value < min ? 0 : value >= max ? buckets.size() - 1 : (size_t)((value - min) / step + 1);
  buckets[i] += times;
}

long Lhist::total() const {
  long t = 0;
  for (long b : buckets) t += b;
  return t;
}

namespace {

// The first and last non-empty buckets, or {-1, -1}.
std::pair<int, int> used_range(const Lhist& h) {
  int first = -1, last = -1;
  for (size_t i = 0; i < h.buckets.size(); i++)
    if (h.buckets[i] > 0) {
      if (first < 0) first = (int)i;
      last = (int)i;
    }
  return {first, last};
}

// bpftrace's lhist_index_label: K and M suffixes only when the step is a multiple of 1024.
std::string label(long n, long step) {
  if (step % 1024 != 0 || n == 0) return std::to_string(n);
  if (n % (1024 * 1024) == 0) return std::to_string(n / (1024 * 1024)) + "M";
  if (n % 1024 == 0) return std::to_string(n / 1024) + "K";
  return std::to_string(n);
}

}  // namespace

std::string lhist_rows(const Lhist& h) {
  auto [first, last] = used_range(h);
  if (first < 0) return "";
  const long most = *std::max_element(h.buckets.begin(), h.buckets.end());
  const int n = (int)h.buckets.size() - 2, width = 52;
  std::string s;
  for (int i = first; i <= last; i++) {
    std::string head = i == 0       ? "(..., " + label(h.min, h.step) + ")"
                       : i == n + 1 ? "[" + label(h.max, h.step) + ", ...)"
                                    : "[" + label((i - 1) * h.step + h.min, h.step) + ", " +
                                          label(i * h.step + h.min, h.step) + ")";
    // bpftrace computes the bar in float: count / (float)max * 52, truncated.
    const int bar = (int)(h.buckets[i] / (float)most * width);
    char row[256];
    std::snprintf(row, sizeof row, "%-16s%8ld |%-52s|\n", head.c_str(), h.buckets[i], std::string(bar, '@').c_str());
    s += row;
  }
  return s;
}

std::string lhist_map_text(const std::vector<std::pair<std::string, Lhist>>& keyed, bool has_keys) {
  std::vector<const std::pair<std::string, Lhist>*> order;
  for (const auto& k : keyed) order.push_back(&k);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->second.total() < b->second.total(); });
  std::string s;
  for (size_t i = 0; i < order.size(); i++) {
    if (i) s += "\n";
    s += (has_keys ? "@[" + order[i]->first + "]" : std::string("@")) + ": \n" + lhist_rows(order[i]->second);
  }
  return s + "\n";
}

Json lhist_json(const Lhist& h) {
  Json rows = Json::array();
  auto [first, last] = used_range(h);
  const int n = (int)h.buckets.size() - 2;
  for (int i = first; first >= 0 && i <= last; i++) {
    Json b = Json::object();
    if (i == 0) b["max"] = h.min - 1;
    else if (i == n + 1) b["min"] = h.max;
    else {
      b["min"] = (i - 1) * h.step + h.min;
      b["max"] = i * h.step + h.min - 1;
    }
    b["count"] = h.buckets[i];
    rows.push_back(b);
  }
  return rows;
}
