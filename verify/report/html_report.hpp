// The HTML report of `all --html DIR` and `report TRACE.json... -o DIR`: one static page,
// DIR/index.html (inline CSS and script, nothing fetched at view time), with the summary table
// of the checks and a swimlane per counterexample, and DIR/src/, the model sources the
// counterexamples refer to as pages with a link target per line.
#pragma once
#include <string>
#include <vector>
#include "verify/checks/all.hpp"

// "" when dir exists or can be created and is writable; else why not (naming dir).
std::string html_report_dir_problem(const std::string& dir);

// Write the report of these outcomes (each counterexample with events gets a swimlane);
// false with *err naming the file that could not be written.
bool write_html_report(const std::string& dir, const std::string& title, const std::vector<Outcome>& outcomes,
                       std::string* err);

// The checkout whose model sources the links point into: found from the binary
// (build/vmaverify -> build/..), or "" when none holds model/.
std::string report_source_root();
void set_report_source_root(const std::string& dir);

// Text made safe inside HTML elements and attribute values.
std::string html_escape(const std::string& text);
