#include "fuzz/fuzz_inputs.hpp"

#include <z3++.h>
#include <string>
#include <vector>
#include "proofs/spec_file.hpp"
#include "verify/cli/cli.hpp"
#include "verify/maps/maps.hpp"
#include "verify/search/relacy_state.hpp"
#include "verify/report/swimlane.hpp"
#include "verify/report/trace.hpp"

int fuzz_spec(const uint8_t* data, size_t size) {
  Spec spec;
  std::string err;
  if (!spec_from_text("fuzz.smt2", std::string(reinterpret_cast<const char*>(data), size), &spec, &err)) return 0;
  try {
    z3::context c;
    Vocabulary v(c, spec.is_trace());
    z3::expr e(c);
    if (parse_spec(c, spec, v, &e, &err) && spec.is_trace()) parse_defined_bool(c, spec, v, "prefix_invariant", &e, &err);
  } catch (const z3::exception&) {
    // Z3 refusing a term is an error the prover reports; only a crash is a finding.
  }
  return 0;
}

int fuzz_maps(const uint8_t* data, size_t size) {
  Layout layout;
  std::string err;
  if (!parse_maps(std::string(reinterpret_cast<const char*>(data), size), "fuzz.maps", &layout, &err)) return 0;
  MapsReport r;
  analyze(layout, &r);
  return 0;
}

int fuzz_trace(const uint8_t* data, size_t size) {
  RunResult r;
  std::string err;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!read_trace_text("fuzz.json", text, &r, &err)) return 0;
  SearchSpec search;
  if (!SearchSpec::parse(r.search, &search, &err)) return 0;
  for (unsigned threads = 1; threads <= 4; threads++) relacy_state_valid(r.state, search, threads, &err);
  // What `vmaverify report` then reads and draws: the rows, their state column, the swimlanes.
  if (!read_trace_rows("fuzz.json", text, &r, &err)) return 0;
  trace_text(r, false, true);
  build_swimlane(r.events);
  return 0;
}

int fuzz_cli(const uint8_t* data, size_t size) {
  std::vector<std::string> args{"vmaverify"};
  std::string arg;
  for (size_t i = 0; i < size && args.size() < 32; i++) {
    if (data[i] != 0) {
      arg += (char)data[i];
      continue;
    }
    args.push_back(arg);
    arg.clear();
  }
  if (!arg.empty() && args.size() < 32) args.push_back(arg);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  command_line((int)argv.size(), argv.data(), false);
  return 0;
}
