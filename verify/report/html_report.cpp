#include "verify/report/html_report.hpp"

#include "verify/report/safe_write.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include "verify/search/scenario.hpp"
#include "verify/report/swimlane.hpp"
#include "verify/report/trace.hpp"

namespace fs = std::filesystem;

static std::string& source_root_set() {
  static std::string dir;
  return dir;
}
void set_report_source_root(const std::string& dir) { source_root_set() = dir; }

std::string report_source_root() {
  if (!source_root_set().empty()) return source_root_set();
  std::error_code ec;
  fs::path at = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (int up = 0; up < 3 && !ec && !at.empty(); up++, at = at.parent_path()) {
    std::error_code missing;
    if (fs::is_regular_file(at / "model" / "mm.cpp", missing)) return at.string();
  }
  return "";
}

std::string html_escape(const std::string& text) {
  std::string s;
  for (char c : text) switch (c) {
      case '&': s += "&amp;"; break;
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      case '"': s += "&quot;"; break;
      case '\'': s += "&#39;"; break;
      default: s += c;
    }
  return s;
}

std::string html_report_dir_problem(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 && mkdir(dir.c_str(), 0777) != 0)
    return dir + ": cannot create directory: " + std::strerror(errno);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return dir + ": not a directory";
  if (access(dir.c_str(), W_OK | X_OK) != 0) return dir + ": not writable";
  return "";
}

namespace {

const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; }
#summary td, #summary th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
#summary td.num { text-align: right; } #summary td.verdict { white-space: nowrap; }
#summary tr.ok td.verdict { color: #176f2c; } #summary tr.unexpected td.verdict { color: #b00020; font-weight: bold; }
#summary tr.incomplete td.verdict { color: #8a5a00; font-weight: bold; }
.totals { font-weight: bold; }
dl.stats { display: grid; grid-template-columns: max-content auto; gap: 0 1em; }
dl.stats dt { color: #555; } dl.stats dd { margin: 0; }
table.swimlane { table-layout: fixed; width: 100%; font-size: 12px; }
table.swimlane th, table.swimlane td { border: 1px solid #e4e4e4; padding: 2px 4px; vertical-align: top; overflow-wrap: anywhere; }
table.swimlane th.step, table.swimlane td.step { width: 3.5em; text-align: right; color: #666; }
table.swimlane th.lane-head { background: #f0f4fa; }
table.swimlane th.state, table.swimlane td.state { width: 22%; background: #fbfbf4; }
td.lane.busy { background: #f7fbff; }
td.end-of-run { background: #f4f0fa; font-style: italic; }
tr.failing td { background: #ffe1e1 !important; }
tr.failing td.busy, tr.failing td.end-of-run { outline: 2px solid #b00020; font-weight: bold; }
.fn { font-weight: bold; } .obj { color: #333; } .op { color: #0b4f8a; } .val { font-family: monospace; }
.order { color: #777; } a.src, span.src { font-family: monospace; color: #555; }
td.state div { font-family: monospace; }
)";

const char* kFilterScript = R"(
(function () {
  var text = document.getElementById('filter'), only = document.getElementById('only-unexpected');
  var shown = document.getElementById('shown');
  function apply() {
    var q = text.value.toLowerCase(), n = 0;
    document.querySelectorAll('#summary tbody tr').forEach(function (row) {
      var keep = (!q || row.textContent.toLowerCase().indexOf(q) >= 0) &&
                 (!only.checked || !row.classList.contains('ok'));
      row.hidden = !keep;
      if (keep) n++;
    });
    shown.textContent = String(n);
  }
  text.addEventListener('input', apply);
  only.addEventListener('change', apply);
  apply();
})();
)";

std::string check_name(const RunResult& r) {
  std::string s = r.scenario;
  if (r.mutant != "none" && !r.mutant.empty()) s += " [mutant " + r.mutant + "]";
  if (r.variant == "unbatched") s += " [unbatched]";
  return s;
}

// ok | unexpected | incomplete | trace (a trace given to `report`: nothing was expected of it)
std::string status_of(const Outcome& o) {
  if (o.expected.empty()) return "trace";
  if (o.as_expected) return "ok";
  return o.r.result == "incomplete" ? "incomplete" : "unexpected";
}

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// The sources the counterexamples refer to, each written once as DIR/src/PATH.html: the
// checkout's files, and the lines of a kernel tree's files that kernel traces carry.
class SourcePages {
 public:
  SourcePages(std::string dir, std::string root) : dir_(std::move(dir)), root_(std::move(root)) {}

  // A link to file:line for a "file:line" reference whose file has a page; else the reference
  // as text (Relacy's own headers are not part of the checkout).
  std::string link(const std::string& ref) {
    size_t colon = ref.rfind(':');
    if (ref.empty() || colon == std::string::npos) return "<span class=\"src\">" + html_escape(ref) + "</span>";
    std::string file = ref.substr(0, colon), line = ref.substr(colon + 1);
    const std::string page = page_of(file);
    if (page.empty()) return "<span class=\"src\" title=\"not in the source tree\">" + html_escape(ref) + "</span>";
    return "<a class=\"src\" href=\"src/" + html_escape(page) + ".html#L" + html_escape(line) + "\">" +
           html_escape(ref) + "</a>";
  }

  // The lines the next trace carries of files outside the checkout (a kernel tree's, as the
  // checker compiled them, patches applied): its rows link to pages of just those lines. Two
  // traces that carry other lines of one file (other patches) get a page each.
  void use_trace_lines(const std::map<std::string, std::map<int, std::string>>& lines) {
    current_.clear();
    for (const auto& f : lines) {
      if (!relative(f.first)) continue;
      std::string page = f.first;
      for (int n = 2; carried_.count(page) && carried_[page] != f.second; n++) page = f.first + "~" + std::to_string(n);
      carried_[page] = f.second;
      current_[f.first] = page;
    }
  }

  bool write_all(std::string* err) const {
    for (const std::string& page : carried_used_) {
      const std::map<int, std::string>& lines = carried_.at(page);
      std::ostringstream text;
      text << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << html_escape(page)
           << "</title><style>body{margin:0;font:12px/1.45 monospace}pre{margin:0}a{color:#999;text-decoration:none;"
              "display:inline-block;width:4em;text-align:right;margin-right:1em}span:target{background:#ffe1e1}"
              "</style></head><body><h1 style=\"font:bold 14px sans-serif;margin:8px\">"
           << html_escape(page)
           << "</h1><p style=\"font:12px sans-serif;margin:8px\">The lines of the kernel tree's file that the "
              "checker compiled (the extracted functions, patches applied); the others are left out.</p><pre>";
      int last = 0;
      for (const auto& l : lines) {
        if (last && l.first != last + 1) text << "<span>      ...</span>\n";
        text << "<span id=\"L" << l.first << "\"><a href=\"#L" << l.first << "\">" << l.first << "</a>"
             << html_escape(l.second) << "</span>\n";
        last = l.first;
      }
      text << "</pre></body></html>\n";
      if (!write_page(page, text.str(), err)) return false;
    }
    for (const std::string& file : project_) {
      std::ifstream in(root_ + "/" + file);
      std::ostringstream page;
      page << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << html_escape(file)
           << "</title><style>body{margin:0;font:12px/1.45 monospace}pre{margin:0}a{color:#999;text-decoration:none;"
              "display:inline-block;width:4em;text-align:right;margin-right:1em}span:target{background:#ffe1e1}"
              "</style></head><body><h1 style=\"font:bold 14px sans-serif;margin:8px\">"
           << html_escape(file) << "</h1><pre>";
      std::string line;
      for (int n = 1; std::getline(in, line); n++)
        page << "<span id=\"L" << n << "\"><a href=\"#L" << n << "\">" << n << "</a>" << html_escape(line) << "</span>\n";
      page << "</pre></body></html>\n";
      if (!write_page(file, page.str(), err)) return false;
    }
    return true;
  }

 private:
  // Project-relative paths only: nothing outside the output directory, however a trace spells it.
  static bool relative(const std::string& file) {
    return !file.empty() && file[0] != '/' && file.find("..") == std::string::npos &&
           file.find('\0') == std::string::npos;
  }

  // The page a file's references link to, "" for none. A trace's own copy serves only a file
  // the checkout does not have: it cannot stand in for the model's sources.
  std::string page_of(const std::string& file) {
    if (project_.count(file)) return file;
    if (!relative(file)) return "";
    std::error_code ec;
    if (!root_.empty() && fs::is_regular_file(fs::path(root_) / file, ec)) {
      project_.insert(file);
      return file;
    }
    auto c = current_.find(file);
    if (c == current_.end()) return "";
    carried_used_.insert(c->second);
    return c->second;
  }

  bool write_page(const std::string& page, const std::string& text, std::string* err) const {
    const fs::path rel = fs::path("src") / (page + ".html");
    if (!make_real_directory(dir_, rel.parent_path().string(), err)) return false;
    return write_file_safely((fs::path(dir_) / rel).string(), text, err);
  }

  std::string dir_, root_;
  std::set<std::string> project_;                               // the checkout's files linked to
  std::map<std::string, std::map<int, std::string>> carried_;  // page -> the lines it holds
  std::map<std::string, std::string> current_;                  // the trace's file -> its page
  std::set<std::string> carried_used_;                          // the carried pages linked to
};

void summary_table(std::ostringstream& h, const std::vector<Outcome>& outcomes, const std::map<size_t, std::string>& anchors) {
  int unexpected = 0, incomplete = 0, ok = 0, traces = 0;
  for (const Outcome& o : outcomes) {
    const std::string st = status_of(o);
    if (st == "ok") ok++;
    else if (st == "unexpected") unexpected++;
    else if (st == "incomplete") incomplete++;
    else traces++;
  }
  h << "<p class=\"totals\" id=\"totals\">";
  if (traces) h << traces << " counterexample trace" << (traces == 1 ? "" : "s") << (traces < (int)outcomes.size() ? "; " : "");
  if (traces < (int)outcomes.size())
    h << outcomes.size() - traces << " checked, " << ok << " as expected, " << unexpected << " unexpected, " << incomplete
      << " incomplete";
  h << "</p>\n";
  h << "<p><label>Filter: <input id=\"filter\" type=\"search\" placeholder=\"scenario, mutant, kind, ...\"></label> "
       "<label><input id=\"only-unexpected\" type=\"checkbox\"> only what is not as expected</label> "
       "(<span id=\"shown\">" << outcomes.size() << "</span> shown)</p>\n";
  h << "<table id=\"summary\"><thead><tr><th>group</th><th>check</th><th>search</th><th>result</th><th>kind</th>"
       "<th>iterations</th><th>seconds</th><th>expected</th><th>verdict</th><th>trace</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < outcomes.size(); i++) {
    const Outcome& o = outcomes[i];
    const std::string st = status_of(o);
    auto a = anchors.find(i);
    h << "<tr class=\"" << st << "\"><td>" << html_escape(o.group) << "</td><td>" << html_escape(check_name(o.r))
      << "</td><td>" << html_escape(o.r.search) << "</td><td>" << html_escape(o.r.result) << "</td><td>"
      << html_escape(o.r.kind) << "</td><td class=\"num\">" << o.r.iterations << "</td><td class=\"num\">"
      << fixed(o.r.seconds, 2) << "</td><td>" << html_escape(o.expected.empty() ? "-" : o.expected)
      << "</td><td class=\"verdict\">" << (st == "ok" ? "as expected" : st == "trace" ? "-" : st) << "</td><td>"
      << (a == anchors.end() ? "" : "<a href=\"#" + a->second + "\">swimlane</a>") << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
}

void statistics(std::ostringstream& h, const Outcome& o, const Swimlane& lanes) {
  const RunResult& r = o.r;
  auto item = [&](const std::string& k, const std::string& v) {
    h << "<dt>" << html_escape(k) << "</dt><dd>" << html_escape(v) << "</dd>";
  };
  h << "<dl class=\"stats\">";
  item("search", r.search + (r.search.rfind("bound:", 0) == 0 ? " (context bound: at most " + r.search.substr(6) +
                                                                     " preemptions)" : ""));
  item("iterations", std::to_string(r.iterations));
  item("seconds", fixed(r.seconds, 2));
  for (const auto& kv : r.stats) item(kv.first, std::to_string(kv.second));
  item("depth reached (steps of the failing interleaving)", std::to_string(r.failing_step));
  item("preemptions in this trace", std::to_string(lanes.preemptions));
  if (!o.trace.empty()) item("trace file", o.trace);
  h << "</dl>\n";
}

void swimlane(std::ostringstream& h, const Outcome& o, const std::string& id, SourcePages* src) {
  const RunResult& r = o.r;
  Swimlane s = build_swimlane(r.events);
  const Scenario* sc = find_scenario(r.scenario);
  h << "<section class=\"counterexample\" id=\"" << id << "\" data-scenario=\"" << html_escape(r.scenario)
    << "\" data-mutant=\"" << html_escape(r.mutant) << "\" data-threads=\"" << s.lanes.size() << "\">\n";
  h << "<h2>" << html_escape(check_name(r)) << ": " << html_escape(r.kind) << "</h2>\n";
  h << "<p class=\"message\">" << html_escape(r.message) << "</p>\n";
  if (sc) h << "<p class=\"legend\">" << html_escape(sc->description) << "</p>\n";
  statistics(h, o, s);
  const size_t n = s.lanes.size();
  h << "<table class=\"swimlane\"><thead><tr><th class=\"step\">step</th>";
  for (size_t i = 0; i < n; i++)
    h << "<th class=\"lane-head\" data-lane=\"" << i << "\" data-thread=\"" << s.lanes[i].thread << "\">T"
      << s.lanes[i].thread << "<br><span class=\"role\">" << html_escape(s.lanes[i].role) << "</span></th>";
  h << "<th class=\"state\">state (where it changes): batch, locks, count words, wait lists, page tables</th></tr>"
       "</thead><tbody>\n";
  for (const SwimlaneRow& row : s.rows) {
    const TraceEvent& e = *row.event;
    h << "<tr class=\"event" << (e.failing ? " failing" : "") << "\" data-step=\"" << e.step << "\" data-thread=\""
      << e.thread << "\"" << (e.failing ? " id=\"" + id + "-failing\"" : "") << "><td class=\"step\">" << e.step
      << "</td>";
    std::ostringstream cell;
    // The call chain, when recorded, as the function's tooltip.
    cell << "<div class=\"fn\"" << (e.chain.empty() ? "" : " title=\"" + html_escape(e.chain) + "\"") << ">"
         << html_escape(e.function) << "</div>";
    if (!e.object.empty()) cell << "<div class=\"obj\">" << html_escape(e.object) << "</div>";
    cell << "<div><span class=\"op\">" << html_escape(e.operation) << "</span>";
    if (!e.order.empty()) cell << " <span class=\"order\">" << html_escape(e.order) << "</span>";
    cell << "</div>";
    if (!e.value.empty()) cell << "<div class=\"val\">" << html_escape(e.value) << "</div>";
    if (!e.source.empty()) cell << "<div>" << src->link(e.source) << "</div>";
    if (row.lane < 0) {
      h << "<td class=\"end-of-run\" colspan=\"" << (n ? n : 1) << "\">end of run: " << cell.str() << "</td>";
    } else {
      for (size_t i = 0; i < n; i++)
        h << "<td class=\"lane" << ((int)i == row.lane ? " busy" : "") << "\" data-lane=\"" << i << "\">"
          << ((int)i == row.lane ? cell.str() : "") << "</td>";
    }
    h << "<td class=\"state\">";
    for (const std::string& c : row.changes) h << "<div>" << html_escape(c) << "</div>";
    h << "</td></tr>\n";
  }
  h << "</tbody></table>\n</section>\n";
}

}  // namespace

bool write_html_report(const std::string& dir, const std::string& title, const std::vector<Outcome>& outcomes,
                       std::string* err) {
  std::string problem = html_report_dir_problem(dir);
  if (!problem.empty()) {
    *err = problem;
    return false;
  }
  SourcePages src(dir, report_source_root());
  std::map<size_t, std::string> anchors;
  for (size_t i = 0; i < outcomes.size(); i++)
    if (!outcomes[i].r.events.empty()) anchors[i] = "cx-" + std::to_string(i);
  std::ostringstream body;
  for (const auto& a : anchors) {
    src.use_trace_lines(outcomes[a.first].r.source_lines);
    swimlane(body, outcomes[a.first], a.second, &src);
  }
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << html_escape(title)
    << "</title>\n<style>" << kStyle << "</style></head><body>\n<h1>" << html_escape(title) << "</h1>\n";
  summary_table(h, outcomes, anchors);
  if (!anchors.empty())
    h << "<p>Each counterexample below is a swimlane: one column per task, time downward; the failing step "
         "is highlighted; the right column shows where a step changes the batch, the lock owners, an "
         "rw_semaphore's count word or wait list, or a page table; a function's tooltip is its kernel call "
         "chain; sources link to the model's code.</p>\n";
  h << body.str();
  h << "<script>" << kFilterScript << "</script>\n</body></html>\n";
  if (!src.write_all(err)) return false;
  return write_file_safely(dir + "/index.html", h.str(), err);
}
