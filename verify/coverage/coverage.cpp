#include "verify/coverage/coverage.hpp"

#include <algorithm>
#include <fstream>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

using nlohmann::json;

const std::vector<CoveredFile>& covered_files() {
  static const std::vector<CoveredFile> files = {
      {"model/rwsem_count.hpp", "kernel/locking/rwsem.c"},
      {"model/sched.hpp", "kernel/sched/core.c"},
      {"model/vma_batch.hpp", "mm/vma.c"},
      {"model/free_pgtables.hpp", "mm/memory.c"},
      {"model/pgtable.hpp", "mm/memory.c"},
      {"model/mm.cpp", "mm/vma.c, mm/mmap.c"},
      {"model/actors.cpp", "mm/rmap.c, mm/memory.c, mm/khugepaged.c, mm/vma.c, mm/mmap.c, mm/util.c, kernel/fork.c"},
      {"model/fault.cpp", "mm/memory.c, mm/mmap.c"},
      {"model/mmap_lock.cpp", "include/linux/mmap_lock.h, include/linux/mm.h"},
      {"model/mmu_gather.cpp", "mm/mmu_gather.c"},
      {"model/rcu.cpp", "kernel/rcu/tree.c"},
      {"model/hugetlb.cpp", "mm/hugetlb.c, fs/hugetlbfs/inode.c"},
      {"model/userfaultfd.cpp", "mm/userfaultfd.c, mm/rmap.c"},
  };
  return files;
}

static std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool read_coverage_exceptions(const std::string& path, std::vector<CoverageException>* out, std::string* err,
                              const std::function<bool(const std::string&)>& known_file) {
  std::ifstream in(path);
  if (!in) {
    *err = path + ": cannot read the coverage exceptions file";
    return false;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); n++) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    size_t a = t.find(" | "), b = a == std::string::npos ? a : t.find(" | ", a + 3);
    if (b == std::string::npos) {
      *err = path + ":" + std::to_string(n) + ": expected \"MODEL FILE | SOURCE TEXT | REASON\"";
      return false;
    }
    CoverageException x{trim(t.substr(0, a)), trim(t.substr(a + 3, b - a - 3)), trim(t.substr(b + 3)), n};
    bool known = known_file ? known_file(x.file)
                            : std::any_of(covered_files().begin(), covered_files().end(),
                                          [&](const CoveredFile& f) { return x.file == f.model; });
    if (!known) {
      *err = path + ":" + std::to_string(n) + ": " + x.file + (known_file ? " is not a file the checker compiles code from"
                                                                           : " is not a covered model file");
      return false;
    }
    if (x.text.empty() || x.reason.empty()) {
      *err = path + ":" + std::to_string(n) + ": the source text and the reason must not be empty";
      return false;
    }
    out->push_back(x);
  }
  return true;
}

int CoverageReport::unexcepted_gaps() const {
  return (int)std::count_if(gaps.begin(), gaps.end(), [](const CoverageGap& g) { return !g.excepted; });
}

// "ns::type::name(args) const" -> "name"
static std::string short_name(std::string n) {
  size_t paren = n.find('(');
  if (paren != std::string::npos) n = n.substr(0, paren);
  size_t colon = n.rfind("::");
  return colon == std::string::npos ? n : n.substr(colon + 2);
}

static std::vector<std::string> source_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

bool coverage_report(const json& gcovr, const std::string& source_dir, std::vector<CoverageException>* exceptions,
                     CoverageReport* out, std::string* err) {
  if (!gcovr.is_object() || !gcovr.contains("files") || !gcovr["files"].is_array()) {
    *err = "gcovr's report has no \"files\" array";
    return false;
  }
  for (const CoveredFile& cf : covered_files()) {
    const json* file = nullptr;
    for (const json& f : gcovr["files"])
      if (f.value("file", "") == cf.model) file = &f;
    if (!file) {
      *err = std::string(cf.model) + " is not in gcovr's report: no run reached it, or the build has no coverage";
      return false;
    }
    // Functions by first line: each line belongs to the last function starting at or before it.
    std::map<int, std::string> starts;
    for (const json& fn : file->value("functions", json::array()))
      starts[fn.value("lineno", 0)] = short_name(fn.value("name", "?"));
    std::map<std::string, FunctionCoverage> by_name;
    std::vector<std::string> src = source_lines(source_dir + "/" + cf.model);
    for (const json& l : file->value("lines", json::array())) {
      if (l.value("gcovr/noncode", false)) continue;
      int n = l.value("line_number", 0);
      auto it = starts.upper_bound(n);
      std::string fname = it == starts.begin() ? "(file scope)" : std::prev(it)->second;
      FunctionCoverage& fc = by_name[fname];
      fc.file = cf.model, fc.kernel_file = cf.kernel, fc.name = fname;
      bool ran = l.value("count", 0L) > 0;
      int branches = 0, taken = 0;
      for (const json& b : l.value("branches", json::array())) {
        branches++;
        taken += b.value("count", 0L) > 0;
      }
      fc.lines++, fc.lines_run += ran, fc.branches += branches, fc.branches_taken += taken;
      if (ran && taken == branches) continue;
      CoverageGap g{cf.model, fname, n > 0 && n <= (int)src.size() ? trim(src[n - 1]) : "", n,
                    ran ? branches : 0, ran ? taken : 0};
      for (CoverageException& x : *exceptions)
        if (x.file == g.file && g.code.rfind(x.text, 0) == 0) {
          g.excepted = &x;
          x.used = true;
        }
      out->gaps.push_back(g);
    }
    for (auto& f : by_name) out->functions.push_back(f.second);
  }
  return true;
}

static std::string stale_text(const std::vector<CoverageException>& exceptions) {
  std::string s;
  for (const CoverageException& x : exceptions)
    if (!x.used) s += "stale exception (reached now, or its text no longer matches) at line " + std::to_string(x.line) +
                      ": " + x.file + " | " + x.text + "\n";
  return s;
}

static std::string gap_count_text(const CoverageReport& r) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d gaps, %d excepted, %d unreached outside the exceptions\n", (int)r.gaps.size(),
                (int)r.gaps.size() - r.unexcepted_gaps(), r.unexcepted_gaps());
  return buf;
}

static std::string gap_text(const CoverageGap& g) {
  std::string what = g.branches == 0 ? "never run" : std::to_string(g.branches - g.branches_taken) + " of " +
                                                         std::to_string(g.branches) + " branches never taken";
  std::string s = (g.excepted ? "excepted   " : "UNREACHED  ") + g.file + ":" + std::to_string(g.line) + " (" +
                  g.function + "): " + what + ": " + g.code + "\n";
  if (g.excepted) s += "           why: " + g.excepted->reason + "\n";
  return s;
}

std::string coverage_summary_text(const CoverageReport& r, const std::vector<CoverageException>& exceptions) {
  std::map<std::string, FunctionCoverage> files;
  for (const FunctionCoverage& f : r.functions) {
    FunctionCoverage& t = files[f.file];
    t.kernel_file = f.kernel_file;
    t.lines += f.lines, t.lines_run += f.lines_run, t.branches += f.branches, t.branches_taken += f.branches_taken;
  }
  std::string s;
  char buf[512];
  for (const auto& [file, t] : files) {
    std::snprintf(buf, sizeof buf, "  %-24s %-46s lines %4d/%-4d branches %4d/%-4d\n", file.c_str(),
                  ("(" + t.kernel_file + ")").c_str(), t.lines_run, t.lines, t.branches_taken, t.branches);
    s += buf;
  }
  for (const CoverageGap& g : r.gaps)
    if (!g.excepted) s += gap_text(g);
  return s + stale_text(exceptions) + gap_count_text(r);
}

std::string coverage_text(const CoverageReport& r, const std::vector<CoverageException>& exceptions) {
  std::string s, file;
  char buf[512];
  for (const FunctionCoverage& f : r.functions) {
    if (f.file != file) {
      file = f.file;
      s += f.kernel_file == file ? file + "\n" : file + " (" + f.kernel_file + ")\n";
    }
    std::snprintf(buf, sizeof buf, "  %-36s lines %3d/%-3d branches %3d/%-3d\n", f.name.c_str(), f.lines_run, f.lines,
                  f.branches_taken, f.branches);
    s += buf;
  }
  for (const CoverageGap& g : r.gaps) s += gap_text(g);
  return s + stale_text(exceptions) + gap_count_text(r);
}
