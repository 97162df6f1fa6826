// vmaverify kernel --patch says which hunks ran (verify/kernel/kernel_hunks.hpp): a hunk outside the
// code the checker compiles, or compiled and never executed, turns `verified` into `incomplete`
// (exit 3), each such hunk named. The patches on Debian's tree are made at test time from the
// installed files: the project holds no kernel code.
#include <fstream>
#include <regex>
#include <string>
#include <nlohmann/json.hpp>
#include "tests/run_binary.hpp"
#include "verify/kernel/kernel_hunks.hpp"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool real_tree_installed() {
  std::ifstream f("/usr/src/linux-source-6.12.tar.xz");
  return f.good();
}

// Debian's rwsem.c and memory.c in a tree of their own, and a patch (diff -up) of one of them.
struct RealTree {
  std::string dir;
  RealTree() {
    dir = testing::TempDir() + "hunks_XXXXXX";
    if (!mkdtemp(&dir[0])) return;
    std::system(("tar -xJf /usr/src/linux-source-6.12.tar.xz -C '" + dir +
                 "' linux-source-6.12/kernel/locking/rwsem.c linux-source-6.12/mm/memory.c")
                    .c_str());
    dir += "/linux-source-6.12";
  }
  // A patch replacing the first match of `from` in `file` by `to`; empty when it is not there.
  std::string patch(const std::string& file, const std::regex& from, const std::string& to, const std::string& name) {
    const std::string text = read(dir + "/" + file);
    std::smatch m;
    if (!std::regex_search(text, m, from)) return "";
    const std::string edited = m.prefix().str() + m.format(to) + m.suffix().str();
    const std::string work = dir + "/../" + name;
    std::system(("mkdir -p '" + work + "/a/" + file.substr(0, file.rfind('/')) + "' '" + work + "/b/" +
                 file.substr(0, file.rfind('/')) + "'")
                    .c_str());
    std::ofstream(work + "/a/" + file) << text;
    std::ofstream(work + "/b/" + file) << edited;
    std::system(("cd '" + work + "' && diff -up a/" + file + " b/" + file + " > change.patch").c_str());
    return work + "/change.patch";
  }
};

}  // namespace

TEST(KernelHunks, HunksAreParsedToTheLinesTheyChange) {
  const std::string patch =
      "--- a/mm/memory.c\n+++ b/mm/memory.c\n@@ -10,6 +10,7 @@ static void free_pmd_range(struct mmu_gather *tlb,\n"
      " \tunsigned long next;\n-\tif (start < floor)\n-\t\treturn;\n+\t/* no floor */\n \tstart &= PMD_MASK;\n"
      "@@ -40,3 +41,4 @@\n \ta();\n+\tb();\n \tc();\n";
  const std::vector<PatchHunk> h = parse_patch_hunks("p", patch);
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].file, "mm/memory.c");
  EXPECT_EQ(h[0].context, "static void free_pmd_range(struct mmu_gather *tlb,");
  EXPECT_EQ(h[0].changed, std::vector<int>({11}));
  EXPECT_TRUE(h[0].code);  // the removed lines are code
  EXPECT_FALSE(h[0].directive);
  EXPECT_EQ(h[1].changed, std::vector<int>({42}));
  EXPECT_EQ(hunk_first_line(h[0]), 11);
}

TEST(KernelHunks, EachHunkIsPlacedAgainstWhatWasCompiledAndWhatRan) {
  PatchHunk h;
  h.file = "kernel/locking/rwsem.c";
  h.changed = {20};
  h.code = true;
  KernelLines compiled = {{"kernel/locking/rwsem.c", {10, 11, 12, 20, 21}}};
  LineCounts ran = {{"kernel/locking/rwsem.c", {{10, 5}, {20, 0}, {21, 0}}}};
  EXPECT_EQ(classify_hunk(h, compiled, &ran), HunkCoverage::not_executed);
  ran["kernel/locking/rwsem.c"][20] = 3;
  EXPECT_EQ(classify_hunk(h, compiled, &ran), HunkCoverage::executed);
  EXPECT_EQ(classify_hunk(h, compiled, nullptr), HunkCoverage::not_measured);
  h.changed = {30};
  EXPECT_EQ(classify_hunk(h, compiled, &ran), HunkCoverage::not_compiled);
  h.file = "mm/khugepaged.c";
  EXPECT_EQ(classify_hunk(h, compiled, &ran), HunkCoverage::not_read);
  // A line of code with no counter (removed as dead code), even next to one that ran: not run.
  // A comment: nothing to run.
  h.file = "kernel/locking/rwsem.c";
  h.changed = {11};
  EXPECT_EQ(classify_hunk(h, compiled, &ran), HunkCoverage::not_executed);
  h.code = false;
  EXPECT_EQ(classify_hunk(h, compiled, &ran), HunkCoverage::no_code);
  // A macro's definition: whether its uses ran is not measured, so it leaves no verdict.
  h.directive = true;
  EXPECT_EQ(classify_hunk(h, compiled, &ran), HunkCoverage::macro);
  EXPECT_TRUE(hunk_leaves_incomplete(HunkCoverage::macro));
  EXPECT_TRUE(hunk_leaves_incomplete(HunkCoverage::not_executed));
  EXPECT_FALSE(hunk_leaves_incomplete(HunkCoverage::no_code));
}

TEST(KernelHunks, OnDebiansTreeOnlyAHunkThatRanGivesAVerdict) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  RealTree t;
  // __downgrade_write: no scenario downgrades, and the checker does not compile it.
  std::string p = t.patch("kernel/locking/rwsem.c", std::regex(R"((__downgrade_write[^]*?)if \(tmp & RWSEM_FLAG_WAITERS\))"),
                          "$1if (tmp & RWSEM_FLAG_HANDOFF)", "downgrade");
  ASSERT_FALSE(p.empty());
  BinaryRun r = run_vmaverify("kernel --patch '" + p + "' rwsem_two_writers --quiet");
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(kernel/locking/rwsem\.c:13\d\d.*__downgrade_write.*not compiled by the checker)")))
      << r.out;

  // The handoff spin-and-retry of rwsem_down_write_slowpath leaves the loop without the lock
  // (goto trylock_again made break): optimistic spinning runs as on x86-64 SMP, so it is caught.
  p = t.patch("kernel/locking/rwsem.c", std::regex(R"(goto trylock_again;)"), "break;", "retry");
  ASSERT_FALSE(p.empty());
  const std::string trace = t.dir + "/../retry.json", report = t.dir + "/../retry-report";
  r = run_vmaverify("kernel --patch '" + p + "' rwsem_two_writers --chains --trace '" + trace + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (lock not held)"), std::string::npos) << r.out;
  // The trace in kernel terms: the tree's call chain of each row, the wait list followed through
  // the kernel's own links (the writer queued, its handoff_set), and the lines it cites.
  EXPECT_NE(r.out.find("down_write → __down_write → __down_write_common → rwsem_down_write_slowpath"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("sem->wait_list: [T1 writer (handoff_set)]"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(read(trace), nullptr, false);
  ASSERT_TRUE(j.is_object()) << trace;
  const std::string patched = j.at("source_lines").at("kernel/locking/rwsem.c").at("1173").get<std::string>();
  EXPECT_EQ(patched.substr(patched.find_first_not_of('\t')), "break;");
  // The HTML report copies those lines: each cited kernel line is a link to its copy.
  BinaryRun rep = run_vmaverify("report '" + trace + "' --output '" + report + "'");
  EXPECT_EQ(rep.status, 0) << rep.out << rep.err;
  EXPECT_NE(read(report + "/index.html").find("href=\"src/kernel/locking/rwsem.c.html#L11"), std::string::npos);
  EXPECT_NE(read(report + "/src/kernel/locking/rwsem.c.html").find("id=\"L1173\""), std::string::npos);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(hunk kernel/locking/rwsem\.c:11\d\d[^\n]*: executed)"))) << r.out;
  // The counterexample's own run went through the patched line (its replay's counters say so).
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(rwsem_two_writers: the counterexample's run went through the patched lines kernel/locking/rwsem\.c:11\d\d)")))
      << r.out;

  // free_pmd_range without its floor test: the tree's page-table freeing runs, and frees the PMD
  // table the VMA below still uses in both scenarios that rest on that test.
  p = t.patch("mm/memory.c", std::regex(R"(\tif \(start < floor\)\n\t\treturn;\n)"), "", "floor");
  ASSERT_FALSE(p.empty());
  r = run_vmaverify("kernel --patch '" + p + "' brk_shrink_vs_truncate munmap_far_next_vs_truncate --quiet");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL brk_shrink_vs_truncate [kernel code] (full): counterexample (page tables)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL munmap_far_next_vs_truncate [kernel code] (full): counterexample (page tables)"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(hunk mm/memory\.c:21\d[^\n]*: executed)"))) << r.out;
  // A deleted test is cited by the lines on either side of it that the run went through.
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(brk_shrink_vs_truncate: the counterexample's run went through the patched lines mm/memory\.c:21\d)")))
      << r.out;

  // unmap_vmas: in mm/memory.c, but not a function the checker compiles.
  p = t.patch("mm/memory.c", std::regex(R"((void unmap_vmas\([^]*?)mmu_notifier_invalidate_range_end\(&range\);)"),
              "$1mmu_notifier_invalidate_range_end(&range); (void)0;", "unmap_vmas");
  ASSERT_FALSE(p.empty());
  r = run_vmaverify("kernel --patch '" + p + "' teardown_vs_truncate --quiet");
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(mm/memory\.c:19\d\d.*not compiled by the checker)"))) << r.out;

  // __up_write, which every writer runs: the usual verdict, the hunk shown as executed.
  p = t.patch("kernel/locking/rwsem.c", std::regex(R"(if \(unlikely\(tmp & RWSEM_FLAG_WAITERS\)\)\n\t\trwsem_wake)"),
              "if (tmp & RWSEM_FLAG_WAITERS)\n\t\trwsem_wake", "upwrite");
  ASSERT_FALSE(p.empty());
  r = run_vmaverify("kernel --patch '" + p + "' rwsem_two_writers --json --quiet");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"coverage\":\"executed\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"scenario\":\"patched hunks\""), std::string::npos) << r.out;
}
