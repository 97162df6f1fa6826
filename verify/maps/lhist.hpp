// bpftrace's linear histogram, lhist(value, min, max, step), printed exactly as bpftrace prints
// it (text and JSON output), so that `maps` can be compared line for line with a bpftrace run.
#pragma once
#include <string>
#include <utility>
#include <vector>
#include <nlohmann/json_fwd.hpp>

struct Lhist {
  long min, max, step;
  // Bucket 0 is (..., min), bucket i in [1, n] is [min + (i-1)*step, min + i*step), bucket
  // n+1 is [max, ...), n = (max - min) / step: bpftrace's layout.
  std::vector<long> buckets;

  Lhist(long min, long max, long step);
  void add(long value, long times = 1);
  long total() const;
};

// bpftrace's TextOutput::lhist_to_str: empty end buckets trimmed; each row the label padded to
// 16, the count right-aligned in 8, " |", a bar of up to 52 '@' padded to 52, "|". Empty: "".
std::string lhist_rows(const Lhist& h);
// A map as bpftrace prints it at exit: "@: " then the rows and a blank line; a keyed map one
// "@[KEY]: " block per key, by total count ascending (the largest last), as bpftrace sorts them.
std::string lhist_map_text(const std::vector<std::pair<std::string, Lhist>>& keyed, bool has_keys);
// bpftrace's JsonOutput::lhist_to_str: the same buckets as [{"min": a, "max": b, "count": n}],
// the underflow bucket without "min", the overflow bucket without "max".
nlohmann::ordered_json lhist_json(const Lhist& h);
