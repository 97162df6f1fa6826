#include "verify/kernel/kernel_coverage.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>
#include "verify/kernel/kernel_hunks.hpp"
#include "verify/kernel_toolchain.hpp"

using nlohmann::json;

std::string default_kernel_coverage_exceptions() {
  return std::string(VMAVERIFY_SOURCE_DIR) + "/verify/kernel/kernel_coverage_exceptions.txt";
}

namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The text of each kernel line the extracted units hold, by file and line (their #line rows).
std::map<std::string, std::map<int, std::string>> kernel_line_texts(const std::vector<std::string>& sources) {
  std::map<std::string, std::map<int, std::string>> texts;
  for_each_kernel_line(sources, [&](const std::string& file, int line, const std::string& text) {
    texts[file][line] = trimmed(text);
  });
  return texts;
}

// "ns::kbody_name(args)" -> "name": the extractor renames the functions that the model's own
// wrappers call (kbody_), the kernel knows them without the prefix.
std::string short_name(std::string n) {
  const size_t paren = n.find('(');
  if (paren != std::string::npos) n = n.substr(0, paren);
  const size_t colon = n.rfind("::");
  if (colon != std::string::npos) n = n.substr(colon + 2);
  return n.rfind("kbody_", 0) == 0 ? n.substr(6) : n;
}

// One kernel line's counts, summed over the units and the copies gcov reports.
struct LineCount {
  long count = 0;
  bool code = false;
  std::vector<long> branches;  // per branch, its count
};

}  // namespace

bool read_kernel_coverage_exceptions(const std::string& path, const std::vector<std::string>& generated_sources,
                                     std::vector<CoverageException>* out, std::string* err) {
  const KernelLines compiled = compiled_kernel_lines(generated_sources);
  return read_coverage_exceptions(path, out, err, [&](const std::string& file) { return compiled.count(file) > 0; });
}

bool kernel_coverage_report(const std::string& gcov_json, const std::vector<std::string>& generated_sources,
                            std::vector<CoverageException>* exceptions, CoverageReport* out, std::string* err) {
  const auto texts = kernel_line_texts(generated_sources);
  std::map<std::string, std::map<int, LineCount>> lines;
  std::map<std::string, std::map<int, std::string>> starts;  // per file: first line -> function
  std::istringstream in(gcov_json);
  bool any = false;
  for (std::string doc; std::getline(in, doc);) {
    if (doc.empty() || doc[0] != '{') continue;
    const json j = json::parse(doc, nullptr, false);
    if (j.is_discarded() || !j.contains("files") || !j["files"].is_array()) {
      *err = "gcov's output is not its JSON format (a document without \"files\")";
      return false;
    }
    any = true;
    for (const json& f : j["files"]) {
      const std::string file = f.value("file", "");
      if (!texts.count(file)) continue;  // the shim's and the model's headers, not the tree's code
      for (const json& fn : f.value("functions", json::array()))
        starts[file][fn.value("start_line", 0)] = short_name(fn.value("demangled_name", fn.value("name", "?")));
      for (const json& l : f.value("lines", json::array())) {
        LineCount& c = lines[file][l.value("line_number", 0)];
        c.code = true;
        c.count += l.value("count", 0L);
        std::vector<long> branches;
        for (const json& b : l.value("branches", json::array()))
          if (!b.value("throw", false)) branches.push_back(b.value("count", 0L));
        // The same line in two units (or an inline function's copies) has the same branches.
        if (c.branches.size() < branches.size()) c.branches.resize(branches.size(), 0);
        for (size_t i = 0; i < branches.size(); i++) c.branches[i] += branches[i];
      }
    }
  }
  if (!any) {
    *err = "gcov printed no JSON document: no counters were written";
    return false;
  }
  for (const auto& [file, by_line] : lines) {
    std::map<std::string, FunctionCoverage> by_name;
    const auto& fstarts = starts[file];
    const auto& ftexts = texts.at(file);
    for (const auto& [n, c] : by_line) {
      auto it = fstarts.upper_bound(n);
      const std::string fname = it == fstarts.begin() ? "(file scope)" : std::prev(it)->second;
      FunctionCoverage& fc = by_name[fname];
      fc.file = fc.kernel_file = file, fc.name = fname;
      const bool ran = c.count > 0;
      int taken = 0;
      for (long b : c.branches) taken += b > 0;
      fc.lines++, fc.lines_run += ran, fc.branches += (int)c.branches.size(), fc.branches_taken += taken;
      if (ran && taken == (int)c.branches.size()) continue;
      const auto text = ftexts.find(n);
      CoverageGap g{file, fname, text == ftexts.end() ? "" : text->second, n, ran ? (int)c.branches.size() : 0,
                    ran ? taken : 0};
      for (CoverageException& x : *exceptions)
        if (x.file == g.file && !g.code.empty() && g.code.rfind(x.text, 0) == 0) {
          g.excepted = &x;
          x.used = true;
        }
      out->gaps.push_back(g);
    }
    for (auto& f : by_name) out->functions.push_back(f.second);
  }
  // A never-run function's closing brace is no gap of its own: its first line says it.
  auto& gaps = out->gaps;
  gaps.erase(std::remove_if(gaps.begin(), gaps.end(),
                            [&](const CoverageGap& g) {
                              if (g.code != "}" || g.excepted) return false;
                              for (const FunctionCoverage& f : out->functions)
                                if (f.file == g.file && f.name == g.function) return f.lines_run == 0;
                              return false;
                            }),
             gaps.end());
  return true;
}
