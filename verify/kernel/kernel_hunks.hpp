// Which lines of a `vmaverify kernel --patch` ran under the checker. A verdict covers only code
// that ran: each hunk of each patch is placed against the code the checker compiled (the #line
// rows of the extracted translation units) and the lines the scenarios executed (gcov counters
// of the checker's kernel code, which a patched build compiles with --coverage). A hunk outside
// the compiled code, or compiled and never executed, makes a `verified` `incomplete`.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

struct PatchHunk {
  std::string patch, file;     // the patch file; the patched file inside the tree (-p1)
  int line = 0;                // the hunk's first line in the patched file
  std::string context;         // the @@ line's trailing text (diff -p: the function), may be empty
  std::vector<int> changed;    // lines of the patched file the hunk added or changed
  std::vector<int> deleted_at; // for lines it removed: the patched file's lines on either side
  bool code = false;           // some added or removed line is code (not blank, a comment or a brace)
  bool directive = false;      // some added or removed line is a preprocessor line (#define, #if ...)
};

// The hunks of one patch's text; a hunk that only deletes a file has no lines.
std::vector<PatchHunk> parse_patch_hunks(const std::string& patch, const std::string& text);

// Each line of the extracted translation units that is kernel code: the file and line its
// #line rows name, and its text (the units' generated scaffolding left out).
void for_each_kernel_line(const std::vector<std::string>& generated_sources,
                          const std::function<void(const std::string& file, int line, const std::string& text)>& fn);
// Kernel lines, per file as the #line rows name it.
typedef std::map<std::string, std::set<int>> KernelLines;
// The lines each extracted translation unit compiles, from its #line rows.
KernelLines compiled_kernel_lines(const std::vector<std::string>& generated_sources);

// Execution counts per kernel line, from gcov's JSON (gcov --json-format --stdout).
typedef std::map<std::string, std::map<int, long>> LineCounts;
bool parse_gcov_json(const std::string& text, LineCounts* counts);

enum class HunkCoverage { executed, no_code, not_executed, not_compiled, not_read, not_measured, macro };
// What the checker did with the hunk: `counts` null when execution was not measured.
HunkCoverage classify_hunk(const PatchHunk& h, const KernelLines& compiled, const LineCounts* counts);
// The first line the hunk changed (or the line after the lines it removed).
int hunk_first_line(const PatchHunk& h);
// "kernel/locking/rwsem.c:1391 (__downgrade_write): not compiled by the checker".
std::string hunk_text(const PatchHunk& h, HunkCoverage c);
// Whether a hunk with this coverage leaves the verdict incomplete.
bool hunk_leaves_incomplete(HunkCoverage c);
