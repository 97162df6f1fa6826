// vmaverify coverage's report: gaps from gcovr's JSON, attributed to the model function they are
// in, and matched against the exceptions file by source text.
#include <gtest/gtest.h>
#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include "verify/coverage/coverage.hpp"

using nlohmann::json;

namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/vmaverify-coverage-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

// gcovr's JSON for every covered file: rwsem_count.hpp gets two functions and, on the given
// line, two branches of which `taken` were taken; every other file one fully covered line.
json gcovr_report(int line, int taken) {
  json files = json::array();
  for (const CoveredFile& f : covered_files()) {
    json lines = json::array({{{"line_number", 1}, {"count", 1}, {"branches", json::array()}}});
    json functions = json::array({{{"name", "first()"}, {"lineno", 1}, {"execution_count", 1}}});
    if (std::string(f.model) == "model/rwsem_count.hpp") {
      functions.push_back({{"name", "rwsem_count_model::rwsem_mark_wake(rwsem_wake_type, wake_q_head*)"},
                           {"lineno", line - 2}, {"execution_count", 3}});
      lines.push_back({{"line_number", line},
                       {"count", 3},
                       {"branches", json::array({{{"count", taken >= 1 ? 2 : 0}}, {{"count", taken >= 2 ? 1 : 0}}})}});
    }
    files.push_back({{"file", f.model}, {"lines", lines}, {"functions", functions}});
  }
  return {{"gcovr/format_version", "0.3"}, {"files", files}};
}

// The first line of the model whose code starts with `code`.
int line_of(const std::string& file, const std::string& code) {
  std::ifstream in(std::string(VMAVERIFY_SOURCE) + "/" + file);
  int n = 0;
  for (std::string l; std::getline(in, l);) {
    n++;
    if (l.find(code) != std::string::npos) return n;
  }
  return 0;
}

}  // namespace

TEST(Coverage, AnUntakenBranchIsAGapInItsFunction) {
  const int line = line_of("model/rwsem_count.hpp", "if (count.load(rl::memory_order_relaxed) < 0) return;");
  ASSERT_GT(line, 0);
  std::vector<CoverageException> none;
  CoverageReport r;
  std::string err;
  ASSERT_TRUE(coverage_report(gcovr_report(line, 1), VMAVERIFY_SOURCE, &none, &r, &err)) << err;
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].function, "rwsem_mark_wake");
  EXPECT_EQ(r.gaps[0].branches, 2);
  EXPECT_EQ(r.gaps[0].branches_taken, 1);
  EXPECT_EQ(r.unexcepted_gaps(), 1);
  EXPECT_NE(coverage_text(r, none).find("UNREACHED  model/rwsem_count.hpp:" + std::to_string(line)), std::string::npos);

  CoverageReport full;
  ASSERT_TRUE(coverage_report(gcovr_report(line, 2), VMAVERIFY_SOURCE, &none, &full, &err)) << err;
  EXPECT_TRUE(full.gaps.empty());
}

TEST(Coverage, AnExceptionMatchesByCodeAndAnUnusedOneIsStale) {
  const int line = line_of("model/rwsem_count.hpp", "if (count.load(rl::memory_order_relaxed) < 0) return;");
  std::string path = write_temp(
      "# comment\n"
      "model/rwsem_count.hpp | if (count.load(rl::memory_order_relaxed) < 0) | needs 2^55 readers\n"
      "model/sched.hpp | inline void schedule() | never a gap here\n");
  std::vector<CoverageException> x;
  std::string err;
  ASSERT_TRUE(read_coverage_exceptions(path, &x, &err)) << err;
  ASSERT_EQ(x.size(), 2u);
  CoverageReport r;
  ASSERT_TRUE(coverage_report(gcovr_report(line, 0), VMAVERIFY_SOURCE, &x, &r, &err)) << err;
  EXPECT_EQ(r.unexcepted_gaps(), 0);
  EXPECT_TRUE(x[0].used);
  EXPECT_FALSE(x[1].used);
  EXPECT_NE(coverage_text(r, x).find("stale exception"), std::string::npos);
  std::remove(path.c_str());
}

TEST(Coverage, AMalformedExceptionNamesItsLine) {
  std::string path = write_temp("model/rwsem_count.hpp | no reason\n");
  std::vector<CoverageException> x;
  std::string err;
  EXPECT_FALSE(read_coverage_exceptions(path, &x, &err));
  EXPECT_NE(err.find(path + ":1:"), std::string::npos) << err;
  std::ofstream(path) << "model/unknown.hpp | code | reason\n";
  x.clear();
  EXPECT_FALSE(read_coverage_exceptions(path, &x, &err));
  EXPECT_NE(err.find("not a covered model file"), std::string::npos) << err;
  std::remove(path.c_str());
}

TEST(Coverage, AReportWithoutTheModelIsAnError) {
  std::vector<CoverageException> none;
  CoverageReport r;
  std::string err;
  EXPECT_FALSE(coverage_report(json{{"files", json::array()}}, VMAVERIFY_SOURCE, &none, &r, &err));
  EXPECT_NE(err.find("model/rwsem_count.hpp"), std::string::npos) << err;
}
