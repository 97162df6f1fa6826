#include "verify/kernel/kernel_hunks.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <nlohmann/json.hpp>

namespace {

// "+++ b/mm/vma.c\t2024-..." -> "mm/vma.c" (patch -p1); empty for /dev/null or a bad path.
std::string tree_path(const std::string& header) {
  std::string p = header.substr(4);
  p = p.substr(0, p.find('\t'));
  const size_t slash = p.find('/');
  if (p == "/dev/null" || slash == std::string::npos) return "";
  return p.substr(slash + 1);
}

// Whether a line is a preprocessor line.
bool is_directive(const std::string& l) {
  const size_t at = l.find_first_not_of(" \t");
  return at != std::string::npos && l[at] == '#';
}

// Whether a line of C is code: not blank, not only a comment or braces.
bool is_code(std::string l) {
  const size_t comment = l.find("//");
  if (comment != std::string::npos) l.erase(comment);
  l.erase(0, l.find_first_not_of(" \t"));
  // A macro's definition has no counter of its own (its uses do).
  if (l.empty() || l.rfind("/*", 0) == 0 || l.rfind("*", 0) == 0 || l[0] == '#') return false;
  return l.find_first_not_of(" \t{};") != std::string::npos;
}

}  // namespace

std::vector<PatchHunk> parse_patch_hunks(const std::string& patch, const std::string& text) {
  std::vector<PatchHunk> hunks;
  static const std::regex at(R"(^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@ ?(.*)$)");
  std::istringstream in(text);
  std::string line, old_file, file;
  int next = 0, left = 0;  // the patched file's next line; the hunk's patched lines still to come
  int removed_left = 0;    // lines of the original still to come (for "-" lines after the last "+")
  bool in_hunk = false;
  for (; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (in_hunk && (left > 0 || removed_left > 0) && !line.empty() &&
        (line[0] == ' ' || line[0] == '+' || line[0] == '-' || line[0] == '\\')) {
      PatchHunk& h = hunks.back();
      if (line[0] == '+' || line[0] == '-') {
        h.code = h.code || is_code(line.substr(1));
        h.directive = h.directive || is_directive(line.substr(1));
      }
      if (line[0] == '+') {
        h.changed.push_back(next++);
        left--;
      } else if (line[0] == '-') {
        h.deleted_at.push_back(next - 1);
        h.deleted_at.push_back(next);
        removed_left--;
      } else if (line[0] == ' ') {
        next++;
        left--;
        removed_left--;
      }
      continue;
    }
    in_hunk = false;
    if (line.rfind("--- ", 0) == 0) {
      old_file = tree_path(line);
    } else if (line.rfind("+++ ", 0) == 0) {
      file = tree_path(line);
      if (file.empty() && !old_file.empty()) {  // the file is deleted: one hunk without lines
        PatchHunk h;
        h.patch = patch;
        h.file = old_file;
        hunks.push_back(h);
      }
    } else {
      std::smatch m;
      if (!file.empty() && std::regex_match(line, m, at)) {
        PatchHunk h;
        h.patch = patch;
        h.file = file;
        h.line = next = std::stoi(m[1]);
        left = m[2].matched ? std::stoi(m[2]) : 1;
        static const std::regex old_count(R"(^@@ -\d+(?:,(\d+))? )");
        std::smatch o;
        removed_left = std::regex_search(line, o, old_count) && o[1].matched ? std::stoi(o[1]) : 1;
        h.context = m[3];
        hunks.push_back(h);
        in_hunk = true;
      }
    }
  }
  return hunks;
}

void for_each_kernel_line(const std::vector<std::string>& generated_sources,
                          const std::function<void(const std::string&, int, const std::string&)>& fn) {
  static const std::regex directive(R"re(^#line (\d+) "([^"]+)"\s*$)re");
  for (const std::string& path : generated_sources) {
    std::ifstream in(path);
    std::string file, line;
    int next = 0;
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_match(line, m, directive)) {
        file = m[2];
        next = std::stoi(m[1]);
        continue;
      }
      if (!file.empty() && file.find("(generated)") == std::string::npos) fn(file, next, line);
      next++;
    }
  }
}

KernelLines compiled_kernel_lines(const std::vector<std::string>& generated_sources) {
  KernelLines lines;
  for_each_kernel_line(generated_sources, [&](const std::string& file, int line, const std::string&) {
    lines[file].insert(line);
  });
  return lines;
}

bool parse_gcov_json(const std::string& text, LineCounts* counts) {
  // gcov --stdout prints one JSON document per data file, one per line.
  std::istringstream in(text);
  bool any = false;
  for (std::string doc; std::getline(in, doc);) {
    if (doc.empty() || doc[0] != '{') continue;
    const nlohmann::json j = nlohmann::json::parse(doc, nullptr, false);
    if (j.is_discarded() || !j.contains("files") || !j["files"].is_array()) return false;
    for (const auto& f : j["files"]) {
      if (!f.contains("file") || !f.contains("lines")) return false;
      auto& file = (*counts)[f["file"].get<std::string>()];
      for (const auto& l : f["lines"]) file[l.value("line_number", 0)] += l.value("count", 0L);
    }
    any = true;
  }
  return any;
}

HunkCoverage classify_hunk(const PatchHunk& h, const KernelLines& compiled, const LineCounts* counts) {
  const auto file = compiled.find(h.file);
  if (file == compiled.end()) return HunkCoverage::not_read;
  std::set<int> lines(h.changed.begin(), h.changed.end());
  lines.insert(h.deleted_at.begin(), h.deleted_at.end());
  if (lines.empty()) return HunkCoverage::not_compiled;  // a file deleted
  bool is_compiled = false;
  for (int l : lines) is_compiled = is_compiled || file->second.count(l);
  if (!is_compiled) return HunkCoverage::not_compiled;
  if (!counts) return HunkCoverage::not_measured;
  const auto run = counts->find(h.file);
  if (run == counts->end()) return HunkCoverage::not_executed;  // no line of the file has run
  // The counters of the changed lines (for removed lines, of the lines on either side).
  std::vector<long> seen;
  for (int l : lines)
    if (run->second.count(l)) seen.push_back(run->second.at(l));
  // No counter on a line of code: the compiler removed it (dead in this configuration) or
  // merged it into one that did not run; on blank lines and comments, there is nothing to run.
  // A macro's definition or a conditional has no counter of its own, and whether its uses ran
  // is not measured: no verdict covers it.
  if (seen.empty()) return h.code ? HunkCoverage::not_executed : h.directive ? HunkCoverage::macro : HunkCoverage::no_code;
  return *std::max_element(seen.begin(), seen.end()) > 0 ? HunkCoverage::executed : HunkCoverage::not_executed;
}

bool hunk_leaves_incomplete(HunkCoverage c) {
  return c == HunkCoverage::not_executed || c == HunkCoverage::not_compiled || c == HunkCoverage::not_read ||
         c == HunkCoverage::not_measured || c == HunkCoverage::macro;
}

int hunk_first_line(const PatchHunk& h) {
  if (!h.changed.empty()) return h.changed.front();
  if (!h.deleted_at.empty()) return h.deleted_at.front() + 1;  // the line after the removed ones
  return h.line;
}

std::string hunk_text(const PatchHunk& h, HunkCoverage c) {
  std::string where = h.file + ":" + std::to_string(hunk_first_line(h));
  if (!h.context.empty()) where += " (" + h.context + ")";
  switch (c) {
    case HunkCoverage::executed: return where + ": executed";
    case HunkCoverage::no_code: return where + ": compiled, no code of its own (a comment)";
    case HunkCoverage::macro:
      return where + ": compiled, a preprocessor line whose uses are not measured (a macro's definition, a conditional)";
    case HunkCoverage::not_executed: return where + ": compiled, never executed by any scenario";
    case HunkCoverage::not_compiled: return where + ": not compiled by the checker (the model stands in for it, or a configuration leaves it out)";
    case HunkCoverage::not_read: return where + ": in a file the checker does not compile from";
    case HunkCoverage::not_measured: return where + ": compiled, execution not measured (a checker built without gcov)";
  }
  return where;
}
