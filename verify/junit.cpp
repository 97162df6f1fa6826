#include "verify/junit.hpp"

#include <cstdio>
#include <fstream>
#include "verify/result_output.hpp"

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

static std::string case_name(const Outcome& o) {
  if (o.group == "mutants") return o.r.mutant + " caught by " + o.r.scenario;
  return o.r.scenario;
}

std::string junit_xml(const std::vector<Outcome>& outcomes) {
  int failures = 0;
  double total = 0;
  for (const Outcome& o : outcomes) {
    failures += !o.as_expected;
    total += o.r.seconds;
  }
  char head[256];
  std::snprintf(head, sizeof head, "<testsuite name=\"vmaverify\" tests=\"%zu\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n",
                outcomes.size(), failures, total);
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  x += head;
  for (const Outcome& o : outcomes) {
    char t[32];
    std::snprintf(t, sizeof t, "%.3f", o.r.seconds);
    x += "  <testcase classname=\"vmaverify." + xml_escape(o.group) + "\" name=\"" + xml_escape(case_name(o)) +
         "\" time=\"" + t + "\">\n";
    if (!o.as_expected) {
      x += "    <failure message=\"" + xml_escape("expected " + o.expected + ", got " + o.r.result +
                                             (o.r.kind.empty() ? "" : " (" + o.r.kind + ")")) +
           "\" type=\"" + xml_escape(o.r.result) + "\">" + xml_escape(result_text(o.r)) + "</failure>\n";
    }
    x += "    <system-out>" + xml_escape(result_text(o.r)) + "</system-out>\n  </testcase>\n";
  }
  return x + "</testsuite>\n</testsuites>\n";
}

bool write_junit(const std::string& file, const std::vector<Outcome>& outcomes, std::string* err) {
  std::ofstream f(file);
  if (!f) {
    *err = "cannot write JUnit file '" + file + "'";
    return false;
  }
  f << junit_xml(outcomes);
  return bool(f);
}
