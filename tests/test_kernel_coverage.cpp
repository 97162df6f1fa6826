// vmaverify kernel --coverage: line and branch coverage of the code taken from the tree, with
// the exceptions file's reasons for what no scenario reaches.
#include <fstream>
#include <regex>
#include <string>
#include "tests/run_binary.hpp"

namespace {

bool real_tree_installed() { return std::ifstream("/usr/src/linux-source-6.12.tar.xz").good(); }

// Every scenario on Debian's tree, each stopped at 300,000 iterations: every line and branch of
// the extracted functions is reached or excepted with a reason, and every exception still
// matches a gap.
TEST(KernelCoverage, OnDebiansTreeEveryGapIsReachedOrExcepted) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_vmaverify("kernel --coverage --budget 300000 --quiet");
  const std::regex summary(R"(ok   kernel coverage \[kernel code\] \(line and branch coverage\): verified.*\n  lines \d+/\d+, branches \d+/\d+ of \d+ functions from the tree; 0 gaps outside the exceptions, 0 stale exceptions)");
  EXPECT_TRUE(std::regex_search(r.out, summary)) << r.out << r.err;
  // Each function taken from the tree has its line, the rwsem.c ones and the mm/ ones.
  for (const char* fn : {"rwsem_down_write_slowpath", "rwsem_optimistic_spin", "rwsem_del_wake_waiter", "free_pud_range",
                         "free_pgtables", "unlink_file_vma_batch_process"})
    EXPECT_TRUE(std::regex_search(r.out, std::regex(std::string("\n  ") + fn + R"( +lines +\d+/\d+ +branches)"))) << fn;
  EXPECT_EQ(r.out.find("UNREACHED"), std::string::npos) << r.out;
  // Budget-stopped searches are incomplete (exit 3), not verified.
  EXPECT_EQ(r.status, 3) << r.err;
}

// A subset of the scenarios: the gaps they leave are named with their code, and stale
// exceptions are not judged.
TEST(KernelCoverage, ASubsetNamesItsGapsWithTheirCode) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_vmaverify("kernel --coverage --quiet rwsem_two_writers");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(UNREACHED  kernel/locking/rwsem\.c:\d+ \(rwsem_del_wake_waiter\): never run: .*rwsem_del_wake_waiter)")))
      << r.out;
  EXPECT_NE(r.out.find("stale exceptions not judged: a subset of the scenarios ran"), std::string::npos) << r.out;
}

// The exceptions file is input: an entry naming a file the checker does not compile from is one
// line naming the file and line, exit 2, before any search.
TEST(KernelCoverage, AnExceptionForAFileNotCompiledIsAUsageError) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  const std::string x = ::testing::TempDir() + "vmaverify_kernel_exceptions.txt";
  std::ofstream(x) << "# comment\nmm/khugepaged.c | if (x) | no reason\n";
  BinaryRun r = run_vmaverify("kernel --coverage --exceptions '" + x + "' --quiet rwsem_two_writers");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(x + ":2: mm/khugepaged.c is not a file the checker compiles code from"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("rwsem_two_writers"), std::string::npos) << "searched despite the bad file: " << r.out;
  r = run_vmaverify("kernel --exceptions '" + x + "' rwsem_two_writers");
  EXPECT_EQ(r.status, 2) << "--exceptions without --coverage: " << r.out << r.err;
}

}  // namespace
