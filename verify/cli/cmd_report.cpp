// vmaverify report: the HTML report (verify/report/html_report.hpp) of saved counterexample traces.
#include <memory>
#include <fstream>
#include <sstream>
#include <CLI/CLI.hpp>
#include "verify/cli/cli.hpp"
#include "verify/report/html_report.hpp"
#include "verify/report/trace.hpp"

namespace {

struct ReportArgs {
  std::vector<std::string> traces;
  std::string out = "vmaverify-report", title = "vmaverify counterexamples";
};

// The rows of a trace read_trace has accepted (it checks what replay needs; the report needs
// the rows too).
bool read_rows(const std::string& file, RunResult* r, std::string* err) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return read_trace_rows(file, text.str(), r, err);
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
