// vmaverify report: the HTML report (verify/report/html_report.hpp) of saved counterexample traces.
#include <cstdlib>
#include <memory>
#include <fstream>
#include <sstream>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include "verify/cli/cli.hpp"
#include "verify/report/html_report.hpp"
#include "verify/report/trace.hpp"

namespace {

struct ReportArgs {
  std::vector<std::string> traces;
  std::string out = "vmaverify-report", title = "vmaverify counterexamples";
};

// The events and the search statistics of a trace read_trace has accepted (it checks what
// replay needs; the report needs the rows too).
bool read_rows(const std::string& file, RunResult* r, std::string* err) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json v = nlohmann::json::parse(text.str(), nullptr, false);
  auto bad = [&](const std::string& why) {
    *err = file + ": not a vmaverify trace (" + why + ")";
    return false;
  };
  if (!v.is_object() || !v.contains("events") || !v["events"].is_array()) return bad("no array field 'events'");
  const char* strings[] = {"function", "object", "operation", "value", "order", "source"};
  size_t i = 0;
  for (const nlohmann::json& e : v["events"]) {
    const std::string at = "event " + std::to_string(i++);
    if (!e.is_object()) return bad(at + " is not an object");
    TraceEvent t;
    std::string* fields[] = {&t.function, &t.object, &t.operation, &t.value, &t.order, &t.source};
    for (size_t k = 0; k < 6; k++) {
      if (!e.contains(strings[k]) || !e[strings[k]].is_string()) return bad(at + ": no string field '" + strings[k] + "'");
      *fields[k] = e[strings[k]].get<std::string>();
    }
    for (const char* k : {"step", "thread"})
      if (!e.contains(k) || !e[k].is_number_integer() || e[k] < -1 || e[k] > 1000000000)
        return bad(at + ": no integer field '" + k + "'");
    if (!e.contains("failing") || !e["failing"].is_boolean()) return bad(at + ": no boolean field 'failing'");
    t.step = e["step"].get<int>();
    t.thread = e["thread"].get<int>();
    t.failing = e["failing"].get<bool>();
    // Optional: traces record it since the call chains were added.
    if (e.contains("chain")) {
      if (!e["chain"].is_string()) return bad(at + ": field 'chain' is not a string");
      t.chain = e["chain"].get<std::string>();
    }
    r->events.push_back(t);
  }
  if (r->events.empty() || !r->events.back().failing) return bad("the last event is not the failing one");
  // Optional: a kernel trace's cited lines of the tree (file -> line -> text).
  if (v.contains("source_lines")) {
    const nlohmann::json& files = v["source_lines"];
    if (!files.is_object()) return bad("field 'source_lines' is not an object");
    for (const auto& f : files.items()) {
      if (!f.value().is_object()) return bad("source_lines of " + f.key() + " is not an object");
      for (const auto& l : f.value().items()) {
        char* end = nullptr;
        const long line = std::strtol(l.key().c_str(), &end, 10);
        if (l.key().empty() || *end || line < 1 || line > 10000000 || !l.value().is_string())
          return bad("source_lines of " + f.key() + ": line " + shown(l.key()) + " is not a line number with its text");
        r->source_lines[f.key()][(int)line] = l.value().get<std::string>();
      }
    }
  }
  // Traces written before the statistics were recorded have none: the report shows zeros.
  auto st = v.find("statistics");
  if (st != v.end() && st->is_object())
    for (auto it = st->begin(); it != st->end(); ++it) {
      if (!it->is_number()) continue;
      if (it.key() == "iterations" && it->is_number_unsigned()) r->iterations = it->get<uint64_t>();
      else if (it.key() == "seconds") r->seconds = it->get<double>();
      else if (it->is_number_integer()) r->stats[it.key()] = it->get<long>();
    }
  return true;
}

int report(const ReportArgs& a) {
  std::vector<Outcome> outcomes;
  for (const std::string& file : a.traces) {
    Outcome o;
    std::string err;
    if (!read_trace(file, &o.r, &err) || !read_rows(file, &o.r, &err)) return usage_error("report: " + err);
    o.r.result = "counterexample";
    o.group = "traces";
    o.trace = file;
    outcomes.push_back(o);
  }
  std::string err;
  if (!write_html_report(a.out, a.title, outcomes, &err)) return usage_error("report: -o " + err);
  std::printf("%s/index.html: %zu counterexample%s\n", a.out.c_str(), outcomes.size(), outcomes.size() == 1 ? "" : "s");
  return EXIT_VERIFIED;
}

CommandRun define_report(CLI::App& cmd) {
  auto a = std::make_shared<ReportArgs>();
  cmd.add_option("TRACE", a->traces, "counterexample traces (JSON) written by run --trace or all --traces")
      ->required()
      ->type_name("");
  cmd.add_option("-o,--output", a->out, "directory to write index.html and src/ into (created if missing)")
      ->type_name("DIR")
      ->capture_default_str();
  cmd.add_option("--title", a->title, "the page's title")->type_name("TEXT")->capture_default_str();
  return [a] { return report(*a); };
}

}  // namespace

static CommandRegistrar reg({"report", "Write the HTML report (swimlanes) of counterexample traces.", &define_report});
