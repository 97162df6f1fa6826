// vmaverify maps: lock round trips of real process layouts, batched vs unbatched.
#include <cstdio>
#include <memory>
#include <CLI/CLI.hpp>
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"
#include "verify/maps/maps.hpp"

// Bad input names the input: "vmaverify maps: FILE:LINE: ..." or "vmaverify maps: cannot open FILE: ...".
static int input_error(const std::string& message) {
  std::fprintf(stderr, "vmaverify maps: %s\n", message.c_str());
  return EXIT_USAGE;
}

struct MapsArgs {
  std::vector<std::string> files;
  std::string by;
  bool all_processes = false, json = false;
};

static int maps(const MapsArgs& a) {
  if (a.files.empty() && !a.all_processes) return usage_error("maps: expected FILE... or --all-processes");
  MapsReport r;
  r.by = a.by;
  std::string err;
  Layout layout;
  for (const std::string& f : a.files) {
    if (!read_maps(f, f, &layout, &err)) return input_error(err);
    analyze(layout, &r, comm_of(f));
  }
  if (a.all_processes && !analyze_all_processes("/proc", &r, &err)) return input_error(err);
  if (a.json)
    std::printf("%s\n", json_line(report_json(r)).c_str());
  else
    std::printf("%s", report_text(r, a.all_processes).c_str());
  // Exactly once: both teardowns must remove every file VMA from its tree once (DESIGN.md, 3).
  if (r.batched.removed != r.file_vmas || r.unbatched.removed != r.file_vmas) {
    std::fprintf(stderr, "vmaverify maps: %ld file VMAs, but %ld removed batched and %ld unbatched\n", r.file_vmas,
                 r.batched.removed, r.unbatched.removed);
    return EXIT_COUNTEREXAMPLE;
  }
  return EXIT_VERIFIED;
}

static CommandRun define_maps(CLI::App& cmd) {
  auto a = std::make_shared<MapsArgs>();
  cmd.add_option("FILE", a->files, "/proc/PID/maps files (or copies of them), one layout each")->type_name("");
  cmd.add_flag("--all-processes", a->all_processes, "also every process in /proc (skipping those that vanish or deny access)");
  cmd.add_option("--by", a->by,
                 "key the batch-size histogram by process name (comm: PID/comm beside PID/maps,\n"
                 "else the file's name without .maps) or by the file whose batch it was")
      ->type_name("comm|file")
      ->check(CLI::IsMember({"comm", "file"}).description(""));
  cmd.add_flag("--json", a->json, "print one JSON object: counts, lock acquisitions, batch-size histogram\n(also labelled, as bpftrace's JSON lhist)");
  return [a] { return maps(*a); };
}

static CommandRegistrar reg({"maps", "Write-lock round trips of real /proc/PID/maps layouts, batched vs unbatched.",
                             &define_maps});
