// The litmus files (tests/reduction/litmus/, one program a file, as the kernel's
// tools/memory-model/litmus-tests): each names the exact set of outcomes its program has under
// Relacy's memory model, or the one way it fails. Plain search, the reduced search whole, in
// two and in three shards and by work-stealing in 2, 3 and 4 processes (splitting at once or
// after a few iterations; the processes at once, and one at a time), and (for a file that says
// "twins") both searches with twins must each reach exactly that set.
#include <gtest/gtest.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "tests/reduction/program_search.hpp"

namespace {

std::vector<std::string> litmus_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(VMAVERIFY_LITMUS))
    if (e.path().extension() == ".litmus") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

// What a search gave, as a litmus file writes it: the failure kind, or the outcomes.
std::set<std::string> seen(const program::Program& p, const program::SearchResult& r) {
  if (!r.failure.empty()) return {r.failure};
  std::set<std::string> s;
  for (uint64_t o : r.outcomes) s.insert(program::outcome_text(p, o));
  return s;
}

std::string listed(const std::set<std::string>& s) {
  std::string t;
  for (const std::string& o : s) t += "\n  " + o;
  return t;
}

class Litmus : public testing::TestWithParam<std::string> {};

TEST_P(Litmus, EverySearchReachesExactlyTheExpectedOutcomes) {
  std::ifstream in(std::string(VMAVERIFY_LITMUS) + "/" + GetParam());
  std::stringstream text;
  text << in.rdbuf();
  program::Program p;
  std::string error;
  std::vector<std::string> expect_list;
  ASSERT_TRUE(program::parse(text.str(), &p, &error, &expect_list)) << GetParam() << ": " << error;
  ASSERT_FALSE(expect_list.empty()) << GetParam() << ": no expect: line";
  const std::set<std::string> expected(expect_list.begin(), expect_list.end());
  std::vector<std::pair<std::string, program::SearchOptions>> searches = {
      {"plain", {false, 0, 1, false, 0}}, {"reduced", {true, 0, 1, false, 0}}};
  if (p.symmetric) {
    searches.push_back({"plain with twins", {false, 0, 1, true, 0}});
    searches.push_back({"reduced with twins", {true, 0, 1, true, 0}});
  }
  for (const auto& s : searches) {
    const std::set<std::string> got = seen(p, program::search(p, s.second));
    EXPECT_EQ(got, expected) << GetParam() << ", " << s.first << ": reached" << listed(got) << "\nexpected"
                             << listed(expected);
  }
  // Work-stealing: where the splits fall depends on timing and on how many iterations a process
  // runs before it splits, so each count of processes runs a few times, splitting at once or
  // later; each run, whole, must reach exactly the expected set.
  for (unsigned jobs : {2u, 3u, 4u})
    for (uint64_t split_delay : {0u, 3u, 11u}) {
      program::SearchOptions o;
      o.reduce = true;
      o.jobs = jobs;
      o.split_delay = split_delay;
      const std::set<std::string> got = seen(p, program::search(p, o));
      EXPECT_EQ(got, expected) << GetParam() << ", work-stealing in " << jobs << " processes splitting after "
                               << split_delay << " iterations: reached" << listed(got)
                               << "\nexpected" << listed(expected);
    }
  // And one process at a time, each worker's search before its parent's goes on: the same
  // searches on every run, in which a worker claims every choice its parent would, above its
  // split too, once it has explored those it was given.
  for (unsigned jobs : {2u, 3u, 4u})
    for (uint64_t split_delay : {0u, 1u, 2u, 3u, 5u, 8u, 13u}) {
      program::SearchOptions o;
      o.reduce = true;
      o.jobs = jobs;
      o.split_delay = split_delay;
      o.serial = true;
      const std::set<std::string> got = seen(p, program::search(p, o));
      EXPECT_EQ(got, expected) << GetParam() << ", work-stealing in " << jobs << " processes, one at a time, "
                               << "splitting after " << split_delay << " iterations: reached" << listed(got)
                               << "\nexpected" << listed(expected);
    }
  for (unsigned n : {2u, 3u}) {  // a split's holes depend on where it falls
    std::set<std::string> shards;
    for (unsigned i = 0; i < n; i++) {
      const std::set<std::string> part = seen(p, program::search(p, {true, i, n, false, 0}));
      shards.insert(part.begin(), part.end());
    }
    if (expected.size() == 1 && !expected.begin()->empty() && expected.begin()->find('=') == std::string::npos) {
      // A failure: some shard fails that way (the others may pass).
      EXPECT_TRUE(shards.count(*expected.begin())) << GetParam() << ", " << n << " shards: reached" << listed(shards);
    } else {
      EXPECT_EQ(shards, expected) << GetParam() << ", " << n << " shards: reached" << listed(shards);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, Litmus, testing::ValuesIn(litmus_files()), [](const testing::TestParamInfo<std::string>& i) {
  std::string name = i.param.substr(0, i.param.find('.'));
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum((unsigned char)c); }, '_');
  return name;
});

}  // namespace
