// The HTML report in a real browser: headless Chromium loads the report of a known
// counterexample and of every built-in mutant; the DOM it built is checked (lanes, the failing
// row, links), the console must stay silent, and a screenshot is kept as an artifact.
#include <sys/stat.h>
#include <map>
#include <regex>
#include <set>
#include <nlohmann/json.hpp>
#include "tests/browser.hpp"
#include "tests/run_binary.hpp"

namespace {

std::string fresh_dir(const std::string& name) {
  std::string dir = testing::TempDir() + name + "_XXXXXX";
  return mkdtemp(&dir[0]) ? dir : "";
}

std::set<int> trace_threads(const std::string& trace_file) {
  std::set<int> threads;
  const nlohmann::json trace = nlohmann::json::parse(slurp(trace_file));
  for (const nlohmann::json& e : trace.at("events"))
    if (e.at("thread").get<int>() >= 0) threads.insert(e.at("thread").get<int>());
  return threads;
}

// The DOM of one counterexample's section, in the order the page has them.
std::vector<std::string> sections(const std::string& dom) {
  std::vector<std::string> s;
  for (size_t at = dom.find("<section class=\"counterexample\""); at != std::string::npos;) {
    size_t end = dom.find("</section>", at);
    s.push_back(dom.substr(at, end - at));
    at = dom.find("<section class=\"counterexample\"", end);
  }
  return s;
}

// lane index -> thread, from the lane headers.
std::map<int, int> lanes(const std::string& section) {
  std::map<int, int> m;
  static const std::regex head(R"re(<th class="lane-head" data-lane="(\d+)" data-thread="(-?\d+)">)re");
  for (std::sregex_iterator i(section.begin(), section.end(), head), end; i != end; ++i)
    m[std::stoi((*i)[1])] = std::stoi((*i)[2]);
  return m;
}

// The failing row is highlighted (class "failing", the only one), and its step sits in the
// lane of its thread (an end-of-run check spans the lanes).
void expect_failing_row_in_its_lane(const std::string& section, int failing_step, const std::string& what) {
  static const std::regex row_re(R"re(<tr class="event failing" data-step="(\d+)" data-thread="(-?\d+)"[^>]*>(.*?)</tr>)re");
  std::smatch row;
  ASSERT_TRUE(std::regex_search(section, row, row_re)) << what << ": no highlighted failing row";
  const std::string after = row.suffix();
  EXPECT_EQ(after.find("event failing"), std::string::npos) << what << ": more than one failing row";
  EXPECT_EQ(std::stoi(row[1]), failing_step) << what;
  const int thread = std::stoi(row[2]);
  const std::string cells = row[3];
  if (thread < 0) {
    EXPECT_NE(cells.find("class=\"end-of-run\""), std::string::npos) << what << ": end-of-run row drawn in a lane";
    return;
  }
  static const std::regex busy_re(R"re(<td class="lane busy" data-lane="(\d+)">)re");
  std::smatch busy;
  ASSERT_TRUE(std::regex_search(cells, busy, busy_re)) << what << ": the failing step is in no lane";
  const std::string rest = busy.suffix();
  std::smatch second;
  EXPECT_FALSE(std::regex_search(rest, second, busy_re)) << what << ": the failing step is in two lanes";
  EXPECT_EQ(lanes(section)[std::stoi(busy[1])], thread) << what << ": the failing step is in another task's lane";
}

// Every link resolves: an anchor to an element of the page, or a source page of the report
// that has the line it points at, showing that line of the checkout's file.
void expect_links_resolve(const std::string& dom, const std::string& dir) {
  static const std::regex href_re(R"re(href="([^"]*)")re");
  int sources = 0;
  for (std::sregex_iterator i(dom.begin(), dom.end(), href_re), end; i != end; ++i) {
    const std::string link = (*i)[1];
    if (link.rfind("#", 0) == 0) {
      EXPECT_NE(dom.find("id=\"" + link.substr(1) + "\""), std::string::npos) << "dangling anchor " << link;
      continue;
    }
    size_t hash = link.find("#L");
    ASSERT_EQ(link.rfind("src/", 0), 0u) << "link outside the report: " << link;
    ASSERT_NE(hash, std::string::npos) << link;
    const std::string page = slurp(dir + "/" + link.substr(0, hash));
    ASSERT_FALSE(page.empty()) << "link to a missing file: " << link;
    const std::string anchor = "<span id=\"" + link.substr(hash + 1) + "\">";
    size_t at = page.find(anchor);
    ASSERT_NE(at, std::string::npos) << "link to a missing line: " << link;
    // The page's line is the checkout's line (one file per report, read once is enough).
    const std::string file = link.substr(4, hash - 4 - 5);  // "src/" ... ".html"
    std::istringstream source(slurp(std::string(VMAVERIFY_SOURCE) + "/" + file));
    std::string line;
    for (int n = std::stoi(link.substr(hash + 2)); n > 0 && std::getline(source, line); n--) {}
    size_t text = page.find("</a>", at) + 4;
    std::string shown = page.substr(text, page.find("</span>", text) - text);
    if (line.find_first_of("<>&\"'") == std::string::npos) {
      EXPECT_EQ(shown, line) << link;
    }
    sources++;
  }
  EXPECT_GT(sources, 0) << "no link into the sources";
}

TEST(BrowserReport, ChromiumIsInstalled) {
  ASSERT_TRUE(chromium_installed()) << "the browser tests need Debian's chromium (bash .ci/setup installs it)";
}

// The check itself: a page that logs and throws is caught, so a silent console means something.
TEST(BrowserReport, ConsoleCheckSeesPageErrors) {
  ASSERT_TRUE(chromium_installed());
  std::string dir = fresh_dir("vmaverify_console");
  std::ofstream(dir + "/bad.html") << "<!DOCTYPE html><html><body><p id=\"p\">x</p>"
                                      "<script>console.error('on purpose'); no_such_function();</script></body></html>";
  BrowserRun b = run_chromium("file://" + dir + "/bad.html", "--dump-dom");
  EXPECT_EQ(b.status, 0);
  EXPECT_NE(b.dom.find("id=\"p\""), std::string::npos);
  ASSERT_EQ(b.console.size(), 2u);
  EXPECT_NE(b.console[0].find("on purpose"), std::string::npos);
  EXPECT_NE(b.console[1].find("no_such_function"), std::string::npos);
}

TEST(BrowserReport, KnownCounterexample) {
  ASSERT_TRUE(chromium_installed());
  const std::string dir = fresh_dir("vmaverify_report"), trace = dir + "/walk.json", out = dir + "/report";
  ASSERT_EQ(run_vmaverify("run teardown_vs_rmap_walk --mutant final_after_free_pgd_range --quiet --trace '" + trace + "'").status, 1);
  BinaryRun r = run_vmaverify("report '" + trace + "' -o '" + out + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json t = nlohmann::json::parse(slurp(trace));

  BrowserRun b = run_chromium("file://" + out + "/index.html", "--dump-dom");
  ASSERT_EQ(b.status, 0);
  EXPECT_TRUE(b.console.empty()) << b.console[0];
  std::vector<std::string> s = sections(b.dom);
  ASSERT_EQ(s.size(), 1u);
  std::map<int, int> lane = lanes(s[0]);
  std::set<int> threads = trace_threads(trace);
  EXPECT_EQ(lane.size(), threads.size()) << "one lane per thread";
  EXPECT_EQ(lane.size(), 2u);  // the exiting task and the rmap walker
  for (const auto& l : lane) EXPECT_TRUE(threads.count(l.second)) << "lane of thread " << l.second;
  EXPECT_NE(s[0].find("exit (exit_mmap)"), std::string::npos) << "the exiting task's role";
  EXPECT_NE(s[0].find("rmap walker (rmap_walk_file)"), std::string::npos) << "the walker's role";
  expect_failing_row_in_its_lane(s[0], t.at("failing_step").get<int>(), "walk");
  // The walker fails, in its own lane.
  EXPECT_NE(s[0].find("data-thread=\"1\" id=\"cx-0-failing\""), std::string::npos);
  // Batch state and lock owners beside the steps that change them.
  EXPECT_NE(s[0].find("batch: count=1"), std::string::npos);
  EXPECT_NE(s[0].find("i_mmap_rwsem of A: held shared by T1"), std::string::npos);
  expect_links_resolve(b.dom, out);

  const std::string artifacts = VMAVERIFY_ARTIFACTS;
  std::system(("mkdir -p '" + artifacts + "'").c_str());
  const std::string png = artifacts + "/report_teardown_vs_rmap_walk.png";
  std::remove(png.c_str());
  BrowserRun shot = run_chromium("file://" + out + "/index.html", "--screenshot='" + png + "' --window-size=1400,2400");
  EXPECT_EQ(shot.status, 0);
  EXPECT_TRUE(shot.console.empty());
  EXPECT_EQ(slurp(png).substr(0, 8), "\x89PNG\r\n\x1a\n") << "screenshot " << png;
}

// Every built-in mutant's counterexample on one page: it opens without a console message, and
// each swimlane has a lane per thread and its failing row in place.
TEST(BrowserReport, EveryMutantOpensCleanly) {
  ASSERT_TRUE(chromium_installed());
  const std::string dir = fresh_dir("vmaverify_mutants");
  BinaryRun list = run_vmaverify("list --json");
  ASSERT_EQ(list.status, 0);
  std::vector<std::string> traces;
  std::string args;
  const nlohmann::json mutants = nlohmann::json::parse(list.out).at("mutants");
  for (const nlohmann::json& m : mutants) {
    const std::string trace = dir + "/" + m.at("name").get<std::string>() + ".json";
    BinaryRun run = run_vmaverify("run " + m.at("caught_by").get<std::string>() + " --mutant " +
                                  m.at("name").get<std::string>() + " --quiet --minimize-budget 0 --trace '" + trace + "'");
    ASSERT_EQ(run.status, 1) << m.at("name") << run.err;
    traces.push_back(trace);
    args += " '" + trace + "'";
  }
  ASSERT_GE(traces.size(), 20u);
  BinaryRun r = run_vmaverify("report" + args + " -o '" + dir + "/report'");
  ASSERT_EQ(r.status, 0) << r.err;
  BrowserRun b = run_chromium("file://" + dir + "/report/index.html", "--dump-dom");
  ASSERT_EQ(b.status, 0);
  EXPECT_TRUE(b.console.empty()) << b.console[0];
  std::vector<std::string> s = sections(b.dom);
  ASSERT_EQ(s.size(), traces.size());
  for (size_t i = 0; i < s.size(); i++) {
    EXPECT_EQ(lanes(s[i]).size(), trace_threads(traces[i]).size()) << traces[i];
    int step = nlohmann::json::parse(slurp(traces[i])).at("failing_step").get<int>();
    expect_failing_row_in_its_lane(s[i], step, traces[i]);
  }
  expect_links_resolve(b.dom, dir + "/report");
}

TEST(Report, BadTraceIsAUsageError) {
  const std::string dir = fresh_dir("vmaverify_badtrace");
  std::ofstream(dir + "/x.json") << "{\"schema\": 1}";
  BinaryRun r = run_vmaverify("report '" + dir + "/x.json' -o '" + dir + "/out'");
  expect_usage_error(r, "not a trace");
  EXPECT_NE(r.err.find("x.json"), std::string::npos) << r.err;
  expect_usage_error(run_vmaverify("report '" + dir + "/missing.json' -o '" + dir + "/out'"), "missing trace");
  expect_usage_error(run_vmaverify("report -o '" + dir + "/out'"), "no trace");
  std::ofstream(dir + "/file") << "x";
  ASSERT_EQ(run_vmaverify("run rwsem_two_writers --mutant up_write_relaxed --quiet --minimize-budget 0 --trace '" + dir +
                          "/t.json'").status, 1);
  BinaryRun not_dir = run_vmaverify("report '" + dir + "/t.json' -o '" + dir + "/file'");
  expect_usage_error(not_dir, "-o is a file");
  EXPECT_NE(not_dir.err.find("not a directory"), std::string::npos) << not_dir.err;
  // A trace replay accepts but whose rows are broken: named, with the row.
  nlohmann::json t = nlohmann::json::parse(slurp(dir + "/t.json"));
  t["events"][1].erase("value");
  std::ofstream(dir + "/rows.json") << t.dump();
  BinaryRun rows = run_vmaverify("report '" + dir + "/rows.json' -o '" + dir + "/out'");
  expect_usage_error(rows, "a row without its value");
  EXPECT_NE(rows.err.find("rows.json: not a vmaverify trace (event 1: no string field 'value')"), std::string::npos)
      << rows.err;
}

// A kernel trace carries the cited lines of the tree (source_lines): the report makes a page of
// them for a file the checkout does not have, never for one it has (a trace cannot put other
// text in the model's pages), and a malformed field is a usage error naming it.
TEST(Report, CarriedLinesServeOnlyFilesOutsideTheCheckout) {
  const std::string dir = fresh_dir("vmaverify_carried");
  ASSERT_EQ(run_vmaverify("run rwsem_two_writers --mutant up_write_relaxed --quiet --minimize-budget 0 --trace '" + dir +
                          "/t.json'").status, 1);
  nlohmann::json t = nlohmann::json::parse(slurp(dir + "/t.json"));
  const std::string model_file = t["events"][2]["source"].get<std::string>();
  const std::string model_path = model_file.substr(0, model_file.rfind(':'));
  t["events"][1]["source"] = "kernel/locking/rwsem.c:1173";
  t["source_lines"] = {{"kernel/locking/rwsem.c", {{"1172", "\t\tif (x)"}, {"1173", "\t\t\tbreak;"}, {"1180", "}"}}},
                       {model_path, {{"1", "forged"}}}};
  std::ofstream(dir + "/k.json") << t.dump();
  BinaryRun r = run_vmaverify("report '" + dir + "/k.json' -o '" + dir + "/out'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string page = slurp(dir + "/out/src/kernel/locking/rwsem.c.html");
  EXPECT_NE(page.find("id=\"L1173\"><a href=\"#L1173\">1173</a>\t\t\tbreak;"), std::string::npos) << page;
  EXPECT_NE(page.find("..."), std::string::npos) << "the lines left out are marked";
  EXPECT_NE(slurp(dir + "/out/index.html").find("href=\"src/kernel/locking/rwsem.c.html#L1173\""), std::string::npos);
  const std::string model_page = slurp(dir + "/out/src/" + model_path + ".html");
  EXPECT_NE(model_page.find("id=\"L1\""), std::string::npos) << model_path;
  EXPECT_EQ(model_page.find("forged"), std::string::npos);
  // Two traces with other lines of one file (other patches): a page each, each trace's rows
  // linking to their own.
  nlohmann::json t2 = t;
  t2["source_lines"] = {{"kernel/locking/rwsem.c", {{"1173", "\t\t\tgoto retry;"}}}};
  std::ofstream(dir + "/k2.json") << t2.dump();
  BinaryRun both = run_vmaverify("report '" + dir + "/k.json' '" + dir + "/k2.json' -o '" + dir + "/out3'");
  ASSERT_EQ(both.status, 0) << both.out << both.err;
  EXPECT_NE(slurp(dir + "/out3/src/kernel/locking/rwsem.c.html").find("break;"), std::string::npos);
  EXPECT_NE(slurp(dir + "/out3/src/kernel/locking/rwsem.c~2.html").find("goto retry;"), std::string::npos);
  EXPECT_NE(slurp(dir + "/out3/index.html").find("href=\"src/kernel/locking/rwsem.c~2.html#L1173\""), std::string::npos);
  t["source_lines"] = {{"kernel/locking/rwsem.c", {{"x", "y"}}}};
  std::ofstream(dir + "/bad.json") << t.dump();
  BinaryRun bad = run_vmaverify("report '" + dir + "/bad.json' -o '" + dir + "/out2'");
  expect_usage_error(bad, "a source line that is not a line number");
  EXPECT_NE(bad.err.find("source_lines of kernel/locking/rwsem.c: line \"x\""), std::string::npos) << bad.err;
}

}  // namespace

namespace {

// `all --only` runs just the checks a pattern selects; --json ends with the summary record;
// --html reports them, the mutant's counterexample as a swimlane.
TEST(AllReport, OnlyOneMutantWithHtmlAndSummary) {
  const std::string dir = fresh_dir("vmaverify_all");
  BinaryRun r = run_vmaverify("all --only 'mutants/rwsem_two_writers/*' --skip 'baselines' --quiet --json --traces '" +
                              dir + "/traces' --html '" + dir + "/html'");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<nlohmann::json> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].at("group"), "mutants");
  EXPECT_EQ(lines[0].at("scenario"), "rwsem_two_writers");
  EXPECT_TRUE(lines[0].at("as_expected").get<bool>());
  EXPECT_EQ(lines[1].at("group"), "summary");
  EXPECT_EQ(lines[1].at("checked"), 1);
  EXPECT_EQ(lines[1].at("as_expected"), 1);
  EXPECT_EQ(lines[1].at("unexpected"), 0);
  const std::string html = slurp(dir + "/html/index.html");
  EXPECT_EQ(sections(html).size(), 1u);
  EXPECT_NE(html.find("1 checked, 1 as expected, 0 unexpected, 0 incomplete"), std::string::npos);
}

TEST(AllReport, PatternThatSelectsNothingIsAUsageError) {
  BinaryRun r = run_vmaverify("all --only 'no_such_check*' --quiet");
  expect_usage_error(r, "--only matching nothing");
  EXPECT_NE(r.err.find("no_such_check*"), std::string::npos) << r.err;
  expect_usage_error(run_vmaverify("all --skip 'nothing/at/all' --quiet"), "--skip matching nothing");
}

}  // namespace
