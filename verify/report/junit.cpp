#include "verify/report/junit.hpp"

#include "verify/report/safe_write.hpp"

#include <cstdio>
#include <fstream>
#include "verify/report/result_output.hpp"

static std::string xml_escape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (c >= 0x20 || c == '\n' || c == '\t') o += (char)c;  // XML 1.0 forbids other control characters
    }
  }
  return o;
}

std::string case_name(const Outcome& o) {
  if (o.group == "proofs" && o.r.mutant != "none") return "batch mutant " + o.r.mutant + " refuted by a spec";
  if (o.r.mutant != "none") return o.r.mutant + " caught by " + o.r.scenario;
  if (o.r.variant == "unbatched") return o.r.scenario + " (unbatched baseline)";
  if (o.r.variant == "kernel") return o.r.scenario + " (kernel code)";
  return o.r.scenario;
}

std::string failure_location(const Outcome& o) {
  for (const TraceEvent& e : o.r.events)
    if (e.failing) return e.source;
  return "";
}

// What a failing case says beyond its one-line result: where, and the trace to replay.
static std::string failure_details(const Outcome& o) {
  std::string d = result_text(o.r);
  std::string at = failure_location(o);
  if (!at.empty()) d += "\n  at " + at;
  if (!o.trace.empty()) d += "\n  trace: " + o.trace + " (vmaverify replay " + o.trace + ")";
  return d;
}

std::string junit_xml(const std::vector<Outcome>& outcomes) {
  int failures = 0, errors = 0;
  double total = 0;
  for (const Outcome& o : outcomes) {
    (o.r.result == "error" ? errors : failures) += !o.as_expected;
    total += o.r.seconds;
  }
  char head[256];
  std::snprintf(head, sizeof head, "<testsuite name=\"vmaverify\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
                outcomes.size(), failures, errors, total);
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  x += head;
  for (const Outcome& o : outcomes) {
    char t[32];
    std::snprintf(t, sizeof t, "%.3f", o.r.seconds);
    std::string at = failure_location(o), where;
    if (!o.as_expected && !at.empty()) {
      size_t colon = at.rfind(':');
      where = " file=\"" + xml_escape(at.substr(0, colon)) + "\" line=\"" + xml_escape(at.substr(colon + 1)) + "\"";
    }
    x += "  <testcase classname=\"vmaverify." + xml_escape(o.group) + "\" name=\"" + xml_escape(case_name(o)) +
         "\" time=\"" + t + "\"" + where + ">\n";
    if (!o.as_expected) {
      // A check that crashed or could not run is an error; one that ran and disagreed, a failure.
      const char* element = o.r.result == "error" ? "error" : "failure";
      x += std::string("    <") + element + " message=\"" +
           xml_escape("expected " + o.expected + ", got " + o.r.result + (o.r.kind.empty() ? "" : " (" + o.r.kind + ")") +
                      (at.empty() ? "" : " at " + at) + (o.trace.empty() ? "" : "; trace " + o.trace)) +
           "\" type=\"" + xml_escape(o.r.result) + "\">" + xml_escape(failure_details(o)) + "</" + element + ">\n";
    }
    x += "    <system-out>" + xml_escape(result_text(o.r)) + "</system-out>\n  </testcase>\n";
  }
  return x + "</testsuite>\n</testsuites>\n";
}

bool write_junit(const std::string& file, const std::vector<Outcome>& outcomes, std::string* err) {
  return write_file_safely(file, junit_xml(outcomes), err);
}

std::string markdown_summary(const std::vector<Outcome>& outcomes) {
  int bad = 0;
  for (const Outcome& o : outcomes) bad += !o.as_expected;
  std::string m = "## vmaverify all: " + std::to_string(outcomes.size() - bad) + " of " + std::to_string(outcomes.size()) +
                  " as expected\n\n| | check | group | expected | got | where / trace |\n|---|---|---|---|---|---|\n";
  auto cell = [](std::string s) {
    for (char& c : s)
      if (c == '|' || c == '\n') c = c == '|' ? '/' : ' ';
    return s;
  };
  // Unexpected results first: they are what a reader of the summary is looking for.
  for (bool expected : {false, true})
    for (const Outcome& o : outcomes) {
      if (o.as_expected != expected) continue;
      std::string got = o.r.result + (o.r.kind.empty() ? "" : " (" + o.r.kind + ")");
      std::string where = failure_location(o) + (o.trace.empty() ? "" : " `" + o.trace + "`");
      m += std::string("| ") + (expected ? "ok" : "**FAIL**") + " | " + cell(case_name(o)) + " | " + o.group + " | " +
           cell(o.expected) + " | " + cell(got) + " | " + cell(expected ? "" : where) + " |\n";
    }
  return m;
}

bool write_markdown_summary(const std::string& file, const std::vector<Outcome>& outcomes, std::string* err) {
  return write_file_safely(file, markdown_summary(outcomes), err, true);
}
