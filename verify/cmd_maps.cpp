// vmaverify maps: lock round trips of real process layouts, batched vs unbatched.
#include <cstdio>
#include "verify/cli.hpp"
#include "verify/maps.hpp"

// Bad input names the input: "vmaverify maps: FILE:LINE: ..." or "vmaverify maps: cannot open FILE: ...".
static int input_error(const std::string& message) {
  std::fprintf(stderr, "vmaverify maps: %s\n", message.c_str());
  return EXIT_USAGE;
}

static int cmd_maps(const std::vector<std::string>& in) {
  Args a;
  std::string err;
  if (!parse_args(in, {}, {"--json", "--all-processes"}, &a, &err)) return usage_error("maps: " + err);
  const bool all = a.has("--all-processes");
  if (a.positional.empty() && !all) return usage_error("maps: expected FILE... or --all-processes");
  MapsReport r;
  std::string text;
  Layout layout;
  for (const std::string& f : a.positional) {
    if (!read_text_file(f, &text, &err) || !parse_maps(text, f, &layout, &err)) return input_error(err);
    analyze(layout, &r);
  }
  if (all && !analyze_all_processes("/proc", &r, &err)) return input_error(err);
  if (a.has("--json"))
    std::printf("%s\n", report_json(r).c_str());
  else
    std::printf("%s", report_text(r, all).c_str());
  // Exactly once: both teardowns must remove every file VMA from its tree once (DESIGN.md, 3).
  if (r.batched.removed != r.file_vmas || r.unbatched.removed != r.file_vmas) {
    std::fprintf(stderr, "vmaverify maps: %ld file VMAs, but %ld removed batched and %ld unbatched\n", r.file_vmas,
                 r.batched.removed, r.unbatched.removed);
    return EXIT_COUNTEREXAMPLE;
  }
  return EXIT_VERIFIED;
}

static CommandRegistrar reg({"maps", "maps [FILE...] [--all-processes] [--json]", &cmd_maps});
