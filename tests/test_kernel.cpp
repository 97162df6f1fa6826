// vmaverify kernel: extraction, compilation and exploration of a tree's own code. The small
// tree here is written by the test in the project's own words (the batch as DESIGN.md
// describes it), not kernel code; the real tree is Debian's linux-source-6.12 when installed.
// The buggy patches are made at test time, by editing a copy and diffing it.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ctime>
#include <fstream>
#include <regex>
#include <string>
#include <vector>
#include "tests/run_binary.hpp"

namespace {

const char* kBatchHeader = R"(/* The batch of file VMAs waiting for one i_mmap lock round trip. */
struct unlink_vma_file_batch {
	int count;
	struct vm_area_struct *vmas[8];
};
)";

// The batch, as DESIGN.md states it. Line numbers matter to the tests below (see kFullCheckLine).
const char* kBatchSource = R"(/* Removal of file VMAs from their mapping's tree, batched per file. */
static void __remove_shared_vm_struct(struct vm_area_struct *vma, struct address_space *mapping)
{
	if (vma_is_shared_maywrite(vma))
		mapping_unmap_writable(mapping);
	vma_interval_tree_remove(vma, &mapping->i_mmap);
}

void unlink_file_vma_batch_init(struct unlink_vma_file_batch *vb)
{
	vb->count = 0;
}

static void unlink_file_vma_batch_process(struct unlink_vma_file_batch *vb)
{
	struct address_space *target = vb->vmas[0]->vm_file->f_mapping;
	int k;

	i_mmap_lock_write(target);
	for (k = 0; k != vb->count; k++) {
		VM_WARN_ON_ONCE(vb->vmas[k]->vm_file->f_mapping != target);
		__remove_shared_vm_struct(vb->vmas[k], target);
	}
	i_mmap_unlock_write(target);
	unlink_file_vma_batch_init(vb);
}

void unlink_file_vma_batch_add(struct unlink_vma_file_batch *vb, struct vm_area_struct *vma)
{
	int other_file, full;

	if (!vma->vm_file)
		return;
	other_file = vb->count && vma->vm_file != vb->vmas[0]->vm_file;
	full = vb->count == ARRAY_SIZE(vb->vmas); /* flush when full */
	if (other_file || full)
		unlink_file_vma_batch_process(vb);
	vb->vmas[vb->count++] = vma;
}

void unlink_file_vma_batch_final(struct unlink_vma_file_batch *vb)
{
	if (vb->count)
		unlink_file_vma_batch_process(vb);
}

void unlink_file_vma(struct vm_area_struct *vma)
{
	if (!vma->vm_file)
		return;
	i_mmap_lock_write(vma->vm_file->f_mapping);
	__remove_shared_vm_struct(vma, vma->vm_file->f_mapping);
	i_mmap_unlock_write(vma->vm_file->f_mapping);
}
)";

// free_pgtables as DESIGN.md states it: hide each VMA, gather neighbours within PMD_SIZE, then
// free their tables once the batch is final.
const char* kMemorySource = R"(/* Page-table teardown of a range of VMAs. */
void free_pgtables(struct mmu_gather *gather, struct ma_state *walk, struct vm_area_struct *cur,
		   unsigned long floor, unsigned long ceiling, bool locked)
{
	struct unlink_vma_file_batch batch;

	while (cur) {
		unsigned long start = cur->vm_start;
		struct vm_area_struct *after = mas_find(walk, ceiling - 1);

		if (xa_is_zero(after))
			after = NULL;
		if (locked)
			vma_start_write(cur);
		unlink_anon_vmas(cur);
		if (is_vm_hugetlb_page(cur)) {
			unlink_file_vma(cur);
			hugetlb_free_pgd_range(gather, start, cur->vm_end, floor, after ? after->vm_start : ceiling);
			cur = after;
			continue;
		}
		unlink_file_vma_batch_init(&batch);
		unlink_file_vma_batch_add(&batch, cur);
		while (after && !is_vm_hugetlb_page(after) && after->vm_start <= cur->vm_end + PMD_SIZE) {
			cur = after;
			after = mas_find(walk, ceiling - 1);
			if (xa_is_zero(after))
				after = NULL;
			if (locked)
				vma_start_write(cur);
			unlink_anon_vmas(cur);
			unlink_file_vma_batch_add(&batch, cur);
		}
		unlink_file_vma_batch_final(&batch); /* hide first */
		free_pgd_range(gather, start, cur->vm_end, floor, after ? after->vm_start : ceiling); /* then free */
		cur = after;
	}
}
)";

// A reader-writer semaphore in the project's own words (not the kernel's algorithm): the count
// word, a wait list under the wait lock, and every sleeper woken at each release. It has the
// entry points the shim calls and uses the shim's kernel API. Line numbers matter below.
const char* kRwsemSource = R"(/* The smallest sleeping reader-writer semaphore the scenarios can run. */
#define HELD_FOR_WRITE	1L
#define READER_ONE	256L

struct sleeper {
	struct list_head list;
	struct task_struct *task;
};

static bool try_read(struct rw_semaphore *sem)
{
	long c = atomic_long_read(&sem->count);

	while (!(c & HELD_FOR_WRITE))
		if (atomic_long_try_cmpxchg_acquire(&sem->count, &c, c + READER_ONE))
			return true;
	return false;
}

static bool try_write(struct rw_semaphore *sem)
{
	long c = 0;

	return atomic_long_try_cmpxchg_acquire(&sem->count, &c, HELD_FOR_WRITE);
}

/* Retry under the wait lock; if it still fails, sleep on the list until a release. */
static void wait_for(struct rw_semaphore *sem, int write)
{
	struct sleeper me;

	me.task = current;
	for (;;) {
		raw_spin_lock_irq(&sem->wait_lock);
		if (write ? try_write(sem) : try_read(sem)) {
			raw_spin_unlock_irq(&sem->wait_lock);
			return;
		}
		list_add_tail(&me.list, &sem->wait_list);
		set_current_state(TASK_UNINTERRUPTIBLE);
		raw_spin_unlock_irq(&sem->wait_lock);
		schedule_preempt_disabled();
		raw_spin_lock_irq(&sem->wait_lock);
		list_del(&me.list);
		raw_spin_unlock_irq(&sem->wait_lock);
	}
}

static void wake_sleepers(struct rw_semaphore *sem)
{
	struct sleeper *s, *next;
	DEFINE_WAKE_Q(wake_q);

	raw_spin_lock_irq(&sem->wait_lock);
	list_for_each_entry_safe(s, next, &sem->wait_list, list)
		wake_q_add(&wake_q, s->task);
	raw_spin_unlock_irq(&sem->wait_lock);
	wake_up_q(&wake_q);
}

void __down_read(struct rw_semaphore *sem)
{
	if (!try_read(sem))
		wait_for(sem, 0);
}

int __down_read_trylock(struct rw_semaphore *sem)
{
	return try_read(sem);
}

void __up_read(struct rw_semaphore *sem)
{
	atomic_long_add_return_release(-READER_ONE, &sem->count);
	wake_sleepers(sem);
}

void __down_write(struct rw_semaphore *sem)
{
	if (!try_write(sem))
		wait_for(sem, 1);
}

int __down_write_trylock(struct rw_semaphore *sem)
{
	return try_write(sem);
}

void __up_write(struct rw_semaphore *sem)
{
	atomic_long_fetch_add_release(-HELD_FOR_WRITE, &sem->count);
	wake_sleepers(sem);
}
)";

std::string temp_dir(const std::string& name) {
  std::string d = testing::TempDir() + "vmaverify_kernel_" + name + "_XXXXXX";
  return mkdtemp(&d[0]) ? d : "";
}

void write(const std::string& path, const std::string& text) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1))
    mkdir(path.substr(0, slash).c_str(), 0777);
  std::ofstream out(path);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string small_tree(const std::string& name, const std::string& batch = kBatchSource,
                       const std::string& memory = kMemorySource) {
  std::string t = temp_dir(name);
  write(t + "/mm/vma.h", kBatchHeader);
  write(t + "/mm/vma.c", batch);
  write(t + "/mm/memory.c", memory);
  return t;
}

// A patch (git format-patch's -p1 form) that turns FILE of TREE into edited, by diff -u.
std::string make_patch(const std::string& tree, const std::string& file, const std::string& edited) {
  std::string work = temp_dir("patch");
  write(work + "/a/" + file, read(tree + "/" + file));
  write(work + "/b/" + file, edited);
  std::string patch = work + "/change.patch";
  std::string cmd = "cd '" + work + "' && diff -u a/" + file + " b/" + file + " > change.patch";
  EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 1) << "diff found no change";
  return patch;
}

// Swap the first line matching first with the next line matching second.
std::string swapped(const std::string& text, const std::regex& first, const std::regex& second) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  size_t a = lines.size(), b = lines.size();
  for (size_t i = 0; i < lines.size() && a == lines.size(); i++)
    if (std::regex_search(lines[i], first)) a = i;
  for (size_t i = a; i < lines.size() && b == lines.size(); i++)
    if (std::regex_search(lines[i], second)) b = i;
  EXPECT_LT(b, lines.size());
  if (b < lines.size()) std::swap(lines[a], lines[b]);
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

bool real_tree_installed() { return std::ifstream("/usr/src/linux-source-6.12.tar.xz").good(); }

// Debian's kernel/locking/rwsem.c alone, extracted into a scratch tree: the tree's directory,
// empty if tar failed.
std::string debian_rwsem_tree(const std::string& name) {
  const std::string t = temp_dir(name);
  const std::string cmd = "tar -xJf /usr/src/linux-source-6.12.tar.xz -C '" + t + "' linux-source-6.12/kernel/locking/rwsem.c";
  return std::system(cmd.c_str()) == 0 ? t + "/linux-source-6.12" : "";
}

// A patch to tree's rwsem.c: rwsem_mark_wake grants a reader with a plain store
// (WRITE_ONCE(waiter->task, NULL)) instead of smp_store_release. Empty if the line is not there.
std::string relaxed_grant_patch(const std::string& tree) {
  const std::string rwsem_c = read(tree + "/kernel/locking/rwsem.c");
  const std::string relaxed = std::regex_replace(rwsem_c, std::regex(R"(smp_store_release\(&waiter->task, NULL\))"),
                                                 "WRITE_ONCE(waiter->task, NULL)");
  return relaxed == rwsem_c ? "" : make_patch(tree, "kernel/locking/rwsem.c", relaxed);
}

// One regex replacement in a kernel file.
struct Edit {
  std::regex from;
  std::string to;
};

// `vmaverify kernel --patch P SCENARIO` with P the patch that applies the edits, in order, to
// Debian's rwsem.c (in a scratch tree named name). A failed run (status -1) when an edit
// changes nothing.
BinaryRun run_with_rwsem_edits(const std::string& name, const std::vector<Edit>& edits, const std::string& scenario) {
  const std::string tree = debian_rwsem_tree(name);
  const std::string rwsem_c = tree.empty() ? "" : read(tree + "/kernel/locking/rwsem.c");
  std::string edited = rwsem_c;
  for (size_t i = 0; i < edits.size(); i++) {
    const std::string before = edited;
    edited = std::regex_replace(edited, edits[i].from, edits[i].to);
    if (edited == before) return BinaryRun{-1, "", "edit " + std::to_string(i + 1) + " of rwsem.c changed nothing"};
  }
  return run_vmaverify("kernel --patch '" + make_patch(tree, "kernel/locking/rwsem.c", edited) + "' " + scenario);
}
BinaryRun run_with_rwsem_edit(const std::string& name, const std::regex& from, const std::string& to,
                              const std::string& scenario) {
  return run_with_rwsem_edits(name, {{from, to}}, scenario);
}

// A patch that drops the full-batch flush; one that frees the tables before the batch is final.
const std::regex kFullCheck(R"(ARRAY_SIZE\(vb->vmas\))");
const std::regex kFinal(R"(unlink_file_vma_batch_final\(&)"), kFree(R"(\bfree_pgd_range\()");

}  // namespace

TEST(Kernel, SmallTreeVerifiesAndAgreesWithTheHandModel) {
  std::string t = small_tree("ok");
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --agree --quiet teardown_two_files teardown_batch_overflow teardown_hugetlb");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok   teardown_batch_overflow"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agrees with the hand model"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("disagrees"), std::string::npos) << r.out;
}

// Several counterexamples: the first trace inline, the others named; --traces writes each to a
// file and none inline; the last line counts the outcomes.
TEST(Kernel, TracesOfSeveralCounterexamplesDoNotBuryTheResults) {
  std::string t = small_tree("several");
  std::string patch = make_patch(t, "mm/vma.c", std::regex_replace(std::string(kBatchSource), kFullCheck, "-1"));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch +
                              "' --quiet teardown_batch_overflow teardown_batch_overflow teardown_two_files");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find("trace not shown"), std::string::npos) << "--quiet shows none: " << r.out;
  r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' teardown_batch_overflow teardown_batch_overflow");
  EXPECT_NE(r.out.find("trace not shown (only the first counterexample's is; --traces DIR writes each)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n3 checked, 1 as expected, 2 unexpected, 0 incomplete"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("kernel: 2/2 scenarios"), std::string::npos) << r.err;
  const std::string dir = t + "/traces";
  r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --traces '" + dir + "' teardown_batch_overflow");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("trace in " + dir + "/teardown_batch_overflow.kernel.json"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(">>"), std::string::npos) << "no trace inline with --traces: " << r.out;
  EXPECT_TRUE(std::regex_search(read(dir + "/teardown_batch_overflow.kernel.json.txt"), std::regex(R"(mm/memory\.c:\d+)")));
}

// --jobs: scenarios searched at once, each in a child of its own, report what one child
// reports, in the scenarios' order, whatever order they end in.
TEST(Kernel, ScenariosSearchedAtOnceReportAsOneChildDoes) {
  std::string t = small_tree("jobs");
  std::string patch = make_patch(t, "mm/vma.c", std::regex_replace(std::string(kBatchSource), kFullCheck, "-1"));
  const std::string scenarios = " teardown_two_files teardown_batch_overflow teardown_hugetlb teardown_batch_overflow "
                                "teardown_two_files teardown_vs_truncate";
  auto run = [&](int jobs) {
    BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --quiet --jobs " + std::to_string(jobs) +
                                scenarios);
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    return std::regex_replace(r.out, std::regex(R"(, [0-9.]+ s\b)"), "");  // times differ from run to run
  };
  const std::string one = run(1), three = run(3);
  EXPECT_EQ(one, three);
  EXPECT_NE(one.find("\n7 checked, 5 as expected, 2 unexpected, 0 incomplete"), std::string::npos) << one;  // with the hunk
  EXPECT_LT(one.find("FAIL teardown_batch_overflow"), one.find("ok   teardown_hugetlb")) << one;
}

TEST(Kernel, DroppingTheFullBatchFlushIsACounterexampleCitingTheTree) {
  std::string t = small_tree("full");
  // The patch sets "full" to 0: the batch is never processed when it holds 8.
  std::string edited = std::regex_replace(std::string(kBatchSource), kFullCheck, "-1");
  std::string patch = make_patch(t, "mm/vma.c", edited);
  std::string trace = t + "/overflow.json";
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --trace '" + trace + "' teardown_batch_overflow");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (bounded count)"), std::string::npos) << r.out;
  // The trace cites the tree's own lines: the add in free_pgtables, the append in mm/vma.c.
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(mm/memory\.c:\d+)"))) << r.out;
  EXPECT_TRUE(std::regex_search(read(trace + ".txt"), std::regex(R"(unlink_file_vma_batch_add.*mm/memory\.c:\d+)")));
}

TEST(Kernel, FreeingBeforeFinalIsAUseAfterFreeCitingTheTree) {
  std::string t = small_tree("order");
  const std::string patched = swapped(kMemorySource, kFinal, kFree);
  std::string patch = make_patch(t, "mm/memory.c", patched);
  std::smatch call;
  ASSERT_TRUE(std::regex_search(patched, call, kFree));
  const std::string line = std::to_string(1 + std::count(patched.begin(), patched.begin() + call.position(0), '\n'));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' teardown_vs_rmap_walk");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (use-after-free)"), std::string::npos) << r.out;
  // free_pgd_range is now the line before the final: the trace shows the call at the new line.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("calls free_pgd_range.*mm/memory\\.c:" + line + "( |\n)"))) << r.out;
}

TEST(Kernel, TreesThatDoNotServeAreOneLineNamingFunctionAndFile) {
  std::string t = small_tree("missing", std::regex_replace(std::string(kBatchSource), std::regex("void unlink_file_vma_batch_final"), "void batch_final"));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --quiet teardown_two_files");
  expect_usage_error(r, "missing function");
  EXPECT_NE(r.err.find("unlink_file_vma_batch_final: not found in mm/vma.c"), std::string::npos) << r.err;

  t = small_tree("signature", kBatchSource,
                 std::regex_replace(std::string(kMemorySource), std::regex(", bool locked\\)"), ", int locked, int more)"));
  r = run_vmaverify("kernel --tree '" + t + "' --quiet teardown_two_files");
  expect_usage_error(r, "changed signature");
  EXPECT_NE(r.err.find("free_pgtables in mm/memory.c: signature changed"), std::string::npos) << r.err;

  r = run_vmaverify("kernel --tree '" + t + "/nowhere' --quiet");
  expect_usage_error(r, "no tree");
  EXPECT_NE(r.err.find("nowhere: not a directory"), std::string::npos) << r.err;

  std::string empty = temp_dir("empty");
  r = run_vmaverify("kernel --tree '" + empty + "' --quiet");
  expect_usage_error(r, "empty tree");
}

TEST(Kernel, APatchThatDoesNotApplyNamesTheFileAndHunk) {
  std::string empty = temp_dir("notapatch") + "/empty.patch";
  write(empty, "no diff here\n");
  expect_usage_error(run_vmaverify("kernel --tree '" + small_tree("notapatch") + "' --patch '" + empty + "' --quiet"),
                     "not a patch");

  std::string t = small_tree("stale");
  std::string patch = make_patch(t, "mm/vma.c", std::regex_replace(std::string(kBatchSource), kFullCheck, "-1"));
  // The tree moves on under the patch: the hunk's context is gone.
  write(t + "/mm/vma.c", std::regex_replace(std::string(kBatchSource), std::regex("flush when full"), "rewritten"));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --quiet");
  expect_usage_error(r, "stale patch");
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(does not apply: hunk #1 of mm/vma\.c FAILED at line \d+)"))) << r.err;

  // The tree has the change already: patch says so, and so does vmaverify.
  const std::string changed = std::regex_replace(std::string(kBatchSource), kFullCheck, "-1");
  std::string before = small_tree("before");
  patch = make_patch(before, "mm/vma.c", changed);
  r = run_vmaverify("kernel --tree '" + small_tree("applied", changed) + "' --patch '" + patch + "' --quiet");
  expect_usage_error(r, "patch already applied");
  EXPECT_NE(r.err.find("already applied to the tree"), std::string::npos) << r.err;
}

TEST(Kernel, CodeTheShimCannotCompileGoesToANamedLog) {
  std::string t = small_tree("uncompilable",
                             std::regex_replace(std::string(kBatchSource), std::regex("vb->count = 0;"), "vb->count = helper_the_shim_lacks();"));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --quiet teardown_two_files");
  expect_usage_error(r, "compile error");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex(R"(compiler output in (\S+compile\.log))"))) << r.err;
  EXPECT_NE(read(m[1]).find("helper_the_shim_lacks"), std::string::npos);
  // The error itself, at its kernel line, and what the shim lacks.
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(mm/vma\.c:\d+(:\d+)?: .*helper_the_shim_lacks)"))) << r.err;
  EXPECT_NE(r.err.find("the shim lacks helper_the_shim_lacks"), std::string::npos) << r.err;
}

// A patch may create files in the scratch tree, a symbolic link named like the extraction's
// output included: nothing is written through it (the output has a directory of its own).
TEST(Kernel, APatchCannotRedirectTheGeneratedCode) {
  const std::string t = small_tree("redirect"), victim = temp_dir("victim") + "/victim.cpp";
  write(victim, "keep me\n");
  std::string patch = temp_dir("redirect_patch") + "/link.patch";
  write(patch, "diff --git a/kernel_source.cpp b/kernel_source.cpp\nnew file mode 120000\n--- /dev/null\n"
               "+++ b/kernel_source.cpp\n@@ -0,0 +1 @@\n+" + victim + "\n\\ No newline at end of file\n");
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --quiet teardown_two_files");
  EXPECT_EQ(read(victim), "keep me\n") << r.out << r.err;
  EXPECT_NE(r.status, 0) << "a patch that changes no code the checker compiles gives no verdict";
}

// A hunk that applies, but not where the patch says, is said on stderr.
TEST(Kernel, AHunkAppliedAtAnOffsetIsSaid) {
  std::string t = small_tree("offset");
  std::string patch = make_patch(t, "mm/vma.c", std::regex_replace(std::string(kBatchSource), kFullCheck, "-1"));
  write(t + "/mm/vma.c", "/* one line more */\n" + std::string(kBatchSource));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --quiet teardown_batch_overflow");
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(hunk #1 of mm/vma\.c applied at line \d+ \(offset 1 line\), not where the patch says)")))
      << r.err;
}

// Failed builds keep their logs, the newest five only.
TEST(Kernel, FailedBuildsDoNotPileUp) {
  const std::string cache = std::string(VMAVERIFY_ARTIFACTS) + "/../kernel-cache";
  for (int i = 0; i < 7; i++) std::system(("mkdir -p '" + cache + "/failed-old" + std::to_string(i) + "'").c_str());
  std::string t = small_tree("uncompilable_again",
                             std::regex_replace(std::string(kBatchSource), std::regex("vb->count = 0;"), "vb->count = helper_lacking();"));
  expect_usage_error(run_vmaverify("kernel --tree '" + t + "' --quiet teardown_two_files"), "compile error");
  FILE* p = popen(("ls -d '" + cache + "'/failed-* | wc -l").c_str(), "r");
  int n = -1;
  ASSERT_EQ(fscanf(p, "%d", &n), 1);
  pclose(p);
  EXPECT_EQ(n, 5);
}

// Built checkers do not pile up either: the sixteen used last stay.
TEST(Kernel, BuiltCheckersDoNotPileUp) {
  const std::string cache = std::string(VMAVERIFY_ARTIFACTS) + "/../kernel-cache";
  for (int i = 0; i < 20; i++)
    std::system(("mkdir -p '" + cache + "/checker-old" + std::to_string(i) + "' && touch -d '2020-01-01' '" + cache +
                 "/checker-old" + std::to_string(i) + "'").c_str());
  // A tree no earlier run built (a cached checker is not a build, and prunes nothing).
  const std::string unique = "vb->count = 0; /* " + std::to_string(getpid()) + "." + std::to_string(time(nullptr)) + " */";
  std::string t = small_tree("one_more_checker",
                             std::regex_replace(std::string(kBatchSource), std::regex("vb->count = 0;"), unique));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --quiet teardown_two_files");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  FILE* p = popen(("ls -d '" + cache + "'/checker-* | wc -l").c_str(), "r");
  int n = -1;
  ASSERT_EQ(fscanf(p, "%d", &n), 1);
  pclose(p);
  EXPECT_EQ(n, 16);
  EXPECT_NE(system(("test -d '" + cache + "/checker-old0'").c_str()), 0) << "the oldest went first";
}

// SIGINT while the checker compiles: the compiler is stopped, the scratch trees are removed,
// and vmaverify ends by the signal.
TEST(Kernel, AnInterruptedBuildLeavesNoScratchBehind) {
  const std::string cache = std::string(VMAVERIFY_ARTIFACTS) + "/../kernel-cache";
  // This build's scratch trees, told from those of builds other tests run at the same time by
  // the marker its tree carries.
  const std::string marker = "interrupted " + std::to_string(getpid());
  auto scratch = [&] {
    FILE* p = popen(("grep -rls '" + marker + "' '" + cache + "'/tree.* '" + cache + "'/build.* '" + cache +
                     "'/generated.* 2>/dev/null | wc -l").c_str(), "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1) n = -1;
    if (p) pclose(p);
    return n;
  };
  // A tree of its own (a new cache key): the checker is compiled, which takes seconds.
  std::string t = small_tree("interrupted", std::regex_replace(std::string(kBatchSource), std::regex("vb->count = 0;"),
                                                                "vb->count = 0; /* " + marker + " */"));
  FILE* p = popen(("exec " + std::string(VMAVERIFY_BIN) + " kernel --tree '" + t + "' teardown_two_files > /dev/null 2>&1 & echo $!").c_str(), "r");
  long pid = 0;
  ASSERT_EQ(fscanf(p, "%ld", &pid), 1);
  pclose(p);
  usleep(700000);  // extracting or compiling
  EXPECT_GE(scratch(), 1) << "the build has a scratch tree while it runs";
  kill((pid_t)pid, SIGINT);
  for (int i = 0; i < 50 && kill((pid_t)pid, 0) == 0; i++) usleep(100000);
  EXPECT_NE(kill((pid_t)pid, 0), 0) << "still running after SIGINT";
  EXPECT_EQ(scratch(), 0) << "scratch directories left in " << cache;
}

// A patch is code the checker compiles and runs: the tree's text may not include a file, and the
// names through which code reaches the system are poisoned after the shim's headers.
TEST(Kernel, APatchThatReachesTheSystemIsRefused) {
  const std::string init = "vb->count = 0;";
  std::string t = small_tree("calls_system");
  std::string patch = make_patch(
      t, "mm/vma.c", std::regex_replace(std::string(kBatchSource), std::regex("vb->count = 0;"), "system(\"id\"); " + init));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --quiet teardown_two_files");
  expect_usage_error(r, "system() in a patch");
  EXPECT_NE(r.err.find("poisoned \"system\""), std::string::npos) << r.err;

  t = small_tree("includes_a_file");
  patch = make_patch(t, "mm/vma.c",
                     std::regex_replace(std::string(kBatchSource), std::regex("\tvb->count = 0;"), "#include \"/etc/passwd\"\n\tvb->count = 0;"));
  r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --quiet teardown_two_files");
  expect_usage_error(r, "#include in a patch");
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(unlink_file_vma_batch_init in mm/vma\.c:\d+: '#include' inside the extracted code)")))
      << r.err;
}

// What the poisoned names miss (remove() is not one of them) the syscall filter stops: the
// scenarios run in a child that may not open, unlink, exec or fork; the checker names the call.
TEST(Kernel, APatchThatSlipsPastThePoisonIsContained) {
  const std::string victim = ::testing::TempDir() + "vmaverify_contained_victim";
  std::ofstream(victim) << "keep me\n";
  const std::string init = "vb->count = 0;";
  std::string t = small_tree("calls_remove");
  std::string patch = make_patch(t, "mm/vma.c",
                                 std::regex_replace(std::string(kBatchSource), std::regex("vb->count = 0;"),
                                                    "remove(\"" + victim + "\"); " + init));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --quiet teardown_two_files");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(made the system call unlink\w* \(\d+\), which the checker forbids)")))
      << r.out << r.err;
  struct stat st;
  EXPECT_EQ(stat(victim.c_str(), &st), 0) << "the patched code removed " << victim;
  EXPECT_EQ(r.out.find("verified"), std::string::npos) << r.out;
  // Several children at once: the one that made the call stops them all, and no verdict stands.
  r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' --quiet --jobs 2 teardown_two_files "
                    "teardown_hugetlb teardown_two_files teardown_vs_truncate");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(made the system call unlink\w* \(\d+\), which the checker forbids)")))
      << r.out << r.err;
  EXPECT_EQ(stat(victim.c_str(), &st), 0) << "the patched code removed " << victim;
}

TEST(Kernel, RealTreeVerifiesAndBuggyPatchesAreCaughtAtKernelLines) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_vmaverify("kernel --quiet --agree teardown_batch_overflow teardown_vs_rmap_walk teardown_hugetlb");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("agrees with the hand model"), std::string::npos) << r.out;

  // The patches are made here from the installed files: the project holds no kernel code.
  std::string t = temp_dir("real");
  ASSERT_EQ(std::system(("tar -xJf /usr/src/linux-source-6.12.tar.xz -C '" + t +
                         "' linux-source-6.12/mm/vma.c linux-source-6.12/mm/memory.c").c_str()),
            0);
  std::string tree = t + "/linux-source-6.12";
  std::string vma_c = read(tree + "/mm/vma.c");
  // "(vb->count > 0 && ...) ||" then "vb->count == ARRAY_SIZE(vb->vmas))": drop the second test.
  std::string no_full = std::regex_replace(vma_c, std::regex(R"(\) \|\|\n\s*vb->count == ARRAY_SIZE\(vb->vmas\)\))"), "))");
  ASSERT_NE(no_full, vma_c);
  std::string patch = make_patch(tree, "mm/vma.c", no_full);
  r = run_vmaverify("kernel --patch '" + patch + "' teardown_batch_overflow");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (bounded count)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(unlink_file_vma_batch_add.*mm/memory\.c:4\d\d)"))) << r.out;

  // Move "unlink_file_vma_batch_final(&vb);" after the free_pgd_range call that follows it.
  std::string memory_c = read(tree + "/mm/memory.c");
  std::string late_final = std::regex_replace(
      memory_c, std::regex(R"((\t+unlink_file_vma_batch_final\(&vb\);\n)(\t+free_pgd_range\(tlb[^;]*;\n))"), "$2$1");
  ASSERT_NE(late_final, memory_c);
  patch = make_patch(tree, "mm/memory.c", late_final);
  r = run_vmaverify("kernel --patch '" + patch + "' teardown_vs_rmap_walk");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (use-after-free)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(calls free_pgd_range.*mm/memory\.c:4\d\d)"))) << r.out;
}

TEST(Kernel, TheOlderLayoutIsFoundByName) {
  // v6.11 kept the batch in mm/mmap.c and its struct in mm/internal.h.
  std::string t = temp_dir("v611");
  write(t + "/mm/internal.h", kBatchHeader);
  write(t + "/mm/mmap.c", kBatchSource);
  write(t + "/mm/memory.c", kMemorySource);
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' teardown_two_files");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("kernel code: mm/internal.h, mm/memory.c, mm/mmap.c of " + t), std::string::npos) << r.out;
}

TEST(Kernel, MutantsOfTheWorldApplyAndThoseOfReplacedCodeAreAnError) {
  std::string t = small_tree("mutants");
  // free_pgd_range is the model's (the page tables), not taken from the tree: its mutant bites.
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --quiet --mutant free_pgd_range_end_not_lowered munmap_vs_truncate");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (page tables)"), std::string::npos) << r.out;
  // The batch is the tree's: the model's switch in it is never reached.
  r = run_vmaverify("kernel --tree '" + t + "' --quiet --mutant batch_no_flush_when_full teardown_batch_overflow");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("mutant batch_no_flush_when_full was never reached"), std::string::npos) << r.out;
}

namespace {
std::string rwsem_tree(const std::string& name, const std::string& source = kRwsemSource) {
  std::string t = temp_dir(name);
  write(t + "/kernel/locking/rwsem.c", source);
  return t;
}
int line_of(const std::string& text, const std::string& what) {
  size_t at = text.find(what);
  return at == std::string::npos ? -1 : 1 + (int)std::count(text.begin(), text.begin() + at, '\n');
}
}  // namespace

TEST(KernelRwsem, SmallTreeVerifiesAndAgreesWithTheHandModel) {
  std::string t = rwsem_tree("rwsem_ok");
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --agree rwsem_two_writers rwsem_reader_writer");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("kernel code: kernel/locking/rwsem.c of " + t), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok   rwsem_two_writers"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agrees with the hand model: same verdict"), std::string::npos) << r.out;
  // Only the rwsem part is there: a teardown scenario needs mm/ code.
  expect_usage_error(run_vmaverify("kernel --tree '" + t + "' --quiet teardown_two_files"), "no mm code");
}

TEST(KernelRwsem, ARelaxedReleaseIsADataRaceCitingTheTreesLine) {
  std::string t = rwsem_tree("rwsem_relaxed");
  const std::string edited = std::regex_replace(std::string(kRwsemSource),
                                                std::regex(R"(atomic_long_fetch_add_release\(-HELD_FOR_WRITE)"),
                                                "atomic_long_add(-HELD_FOR_WRITE");
  std::string patch = make_patch(t, "kernel/locking/rwsem.c", edited);
  const int line = line_of(edited, "atomic_long_add(-HELD_FOR_WRITE");
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --patch '" + patch + "' rwsem_two_writers");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (data race)"), std::string::npos) << r.out;
  // The relaxed add on the count is a row at its own line of the tree's file.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("kernel/locking/rwsem\\.c:" + std::to_string(line) + "\\b"))) << r.out;
}

TEST(KernelRwsem, AMissingEntryPointIsOneLineNamingIt) {
  std::string t = rwsem_tree("rwsem_missing", std::regex_replace(std::string(kRwsemSource), std::regex("void __up_write"), "void up_write_renamed"));
  BinaryRun r = run_vmaverify("kernel --tree '" + t + "' --quiet rwsem_two_writers");
  expect_usage_error(r, "missing entry point");
  EXPECT_NE(r.err.find("__up_write: not found in kernel/locking/rwsem.c"), std::string::npos) << r.err;
}

TEST(KernelRwsem, RealTreeVerifiesAndARelaxedGrantIsCaughtAtItsLine) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_vmaverify("kernel --quiet --agree rwsem_two_writers rwsem_reader_writer");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("agrees with the hand model: same verdict"), std::string::npos) << r.out;

  const std::string tree = debian_rwsem_tree("rwsem_real");
  ASSERT_FALSE(tree.empty());
  std::string rwsem_c = read(tree + "/kernel/locking/rwsem.c");
  // rwsem_mark_wake grants a reader with a plain store instead of smp_store_release.
  std::string relaxed = std::regex_replace(rwsem_c, std::regex(R"(smp_store_release\(&waiter->task, NULL\))"),
                                           "WRITE_ONCE(waiter->task, NULL)");
  ASSERT_NE(relaxed, rwsem_c);
  const int line = line_of(relaxed, "WRITE_ONCE(waiter->task, NULL)");
  std::string patch = make_patch(tree, "kernel/locking/rwsem.c", relaxed);
  std::string trace = tree + "/grant.json";
  r = run_vmaverify("kernel --patch '" + patch + "' --trace '" + trace + "' rwsem_reader_writer");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (data race)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("rwsem_mark_wake.*kernel/locking/rwsem\\.c:" + std::to_string(line) + "\\b")))
      << r.out;
  EXPECT_NE(read(trace + ".txt").find("kernel/locking/rwsem.c:"), std::string::npos);
}

// A search stopped by its budget has varied only the choices near its leaves: the last fifth
// of the budget samples runs at random. A reader granted with a plain store (no release) in
// rwsem_mark_wake: rwsem_trylock_walker's unreduced depth-first corner of 50,000 runs never even
// executes the patched line; the reduced search's 160,000 runs do not fail, and the random
// sample that follows (40,000 runs) finds the data race.
TEST(KernelRwsem, ARandomSampleFindsWhatTheDepthFirstCornerMisses) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  const std::string tree = debian_rwsem_tree("rwsem_sample");
  ASSERT_FALSE(tree.empty());
  const std::string patch = relaxed_grant_patch(tree);
  ASSERT_FALSE(patch.empty());
  BinaryRun corner = run_vmaverify("kernel --quiet --budget 50000 --search full --patch '" + patch + "' rwsem_trylock_walker");
  EXPECT_EQ(corner.status, 3) << corner.out << corner.err;
  EXPECT_NE(corner.out.find("compiled, never executed by any scenario"), std::string::npos) << corner.out;
  BinaryRun sampled = run_vmaverify("kernel --quiet --budget 200000 --patch '" + patch + "' rwsem_trylock_walker");
  EXPECT_EQ(sampled.status, 1) << sampled.out << sampled.err;
  EXPECT_NE(sampled.out.find("FAIL rwsem_trylock_walker [kernel code] (random:40000): counterexample (data race)"),
            std::string::npos)
      << sampled.out;
  EXPECT_NE(sampled.out.find("iterations of full+reduce before the sample=160000"), std::string::npos) << sampled.out;
  EXPECT_NE(sampled.out.find("went through the patched lines kernel/locking/rwsem.c:"), std::string::npos) << sampled.out;
  BinaryRun unpatched = run_vmaverify("kernel --quiet --budget 200000 rwsem_trylock_walker");
  EXPECT_EQ(unpatched.status, 3) << unpatched.out << unpatched.err;
  EXPECT_NE(unpatched.out.find("then 40000 random runs (random:40000) found no failure"), std::string::npos)
      << unpatched.out;
}

// kernel --replay: the run a kernel trace recorded, again, on the tree and patches it was
// recorded with (exit 1, the same failure at the same step); without the patch it does not
// fail (exit 4); a hand-model trace, or a missing file, is bad input (exit 2).
TEST(KernelRwsem, AKernelTraceReplaysOnItsPatchedTree) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  const std::string tree = debian_rwsem_tree("rwsem_replay");
  ASSERT_FALSE(tree.empty());
  const std::string patch = relaxed_grant_patch(tree);
  ASSERT_FALSE(patch.empty());
  const std::string trace = tree + "/grant.kernel.json";
  BinaryRun found = run_vmaverify("kernel --quiet --patch '" + patch + "' --trace '" + trace + "' rwsem_reader_writer");
  ASSERT_EQ(found.status, 1) << found.out << found.err;
  BinaryRun again = run_vmaverify("kernel --patch '" + patch + "' --replay '" + trace + "'");
  EXPECT_EQ(again.status, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("replay: reproduced the recorded failure"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("rwsem_mark_wake"), std::string::npos) << again.out;  // the trace is printed
  BinaryRun unpatched = run_vmaverify("kernel --replay '" + trace + "'");
  EXPECT_EQ(unpatched.status, 4) << unpatched.out << unpatched.err;
  EXPECT_NE(unpatched.out.find("did NOT reproduce the recorded data race"), std::string::npos) << unpatched.out;
  BinaryRun hand = run_vmaverify("run rwsem_reader_writer --mutant mark_wake_relaxed_grant --quiet --trace '" + tree +
                                 "/hand.json'");
  ASSERT_EQ(hand.status, 1) << hand.out << hand.err;
  BinaryRun wrong = run_vmaverify("kernel --replay '" + tree + "/hand.json'");
  EXPECT_EQ(wrong.status, 2) << wrong.out << wrong.err;
  EXPECT_NE(wrong.err.find("a run of the hand model"), std::string::npos) << wrong.err;
  BinaryRun missing = run_vmaverify("kernel --replay '" + tree + "/none.json'");
  EXPECT_EQ(missing.status, 2) << missing.out << missing.err;
}

// Killable waits run the tree's out_nolock paths: a signalled reader that leaves without
// rechecking waiter.task under wait_lock (so a grant that came first is lost) is caught.
// --config CONFIG_DEBUG_RWSEMS=y: the tree's DEBUG_RWSEMS_WARN_ON checks are checks. A write
// trylock that forgets to record its owner is verified without them (the owner only steers
// spinning) and a kernel warning at __up_write's check with them.
TEST(KernelRwsem, DebugRwsemsMakesItsWarningsChecks) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  const std::string tree = debian_rwsem_tree("rwsem_debug");
  ASSERT_FALSE(tree.empty());
  std::string rwsem_c = read(tree + "/kernel/locking/rwsem.c");
  std::string ownerless = std::regex_replace(
      rwsem_c, std::regex(R"((RWSEM_WRITER_LOCKED\)\) \{\n)\t\trwsem_set_owner\(sem\);\n)"), "$1");
  ASSERT_NE(ownerless, rwsem_c);
  std::string patch = make_patch(tree, "kernel/locking/rwsem.c", ownerless);
  BinaryRun r = run_vmaverify("kernel --quiet --patch '" + patch + "' rwsem_two_writers");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  r = run_vmaverify("kernel --config CONFIG_DEBUG_RWSEMS=y --patch '" + patch + "' rwsem_two_writers");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("configured CONFIG_RWSEM_SPIN_ON_OWNER=y CONFIG_DEBUG_RWSEMS=y"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(>> +\d+ +T\d +__up_write .*kernel warning: DEBUG_RWSEMS_WARN_ON\(\(rwsem_owner\(sem\) != current\).* kernel/locking/rwsem\.c:13\d\d)")))
      << r.out;
  r = run_vmaverify("kernel --config CONFIG_DEBUG_RWSEMS=maybe rwsem_two_writers");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("unknown setting \"CONFIG_DEBUG_RWSEMS=maybe\""), std::string::npos) << r.err;
}

TEST(KernelRwsem, ASignalledReaderThatIgnoresItsGrantIsCaught) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  const std::string tree = debian_rwsem_tree("rwsem_killable");
  ASSERT_FALSE(tree.empty());
  std::string rwsem_c = read(tree + "/kernel/locking/rwsem.c");
  std::string ignoring = std::regex_replace(rwsem_c, std::regex(R"(raw_spin_lock_irq\(&sem->wait_lock\);\n\t+if \(waiter\.task\)\n\t+goto out_nolock;)"),
                                            "raw_spin_lock_irq(&sem->wait_lock);\n\t\t\tgoto out_nolock;");
  ASSERT_NE(ignoring, rwsem_c);
  std::string patch = make_patch(tree, "kernel/locking/rwsem.c", ignoring);
  BinaryRun r = run_vmaverify("kernel --patch '" + patch + "' rwsem_killable_reader");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL rwsem_killable_reader [kernel code]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("signal_pending_state(TASK_KILLABLE): fatal signal pending"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(hunk kernel/locking/rwsem\.c:10\d\d[^\n]*: executed)"))) << r.out;
}

// Task lifetimes under RCU (model/sched.hpp): rwsem_can_spin_on_owner looks at a writer owner's
// task only, since a reader leaves its stale pointer in sem->owner at up_read and may then exit.
// With that test gone (the bug 94a9717b3c40 fixed), a writer that finds the lock reader-owned
// reads the task_struct of a reader that exited before its section began: a use-after-free.
TEST(KernelRwsem, OwnerOnCpuOfAnExitedReaderIsAUseAfterFree) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_with_rwsem_edit("rwsem_lifetime", std::regex(R"(\(owner && !\(flags & RWSEM_READER_OWNED\) && !owner_on_cpu\(owner\)\))"),
                                    "(owner && !owner_on_cpu(owner))", "rwsem_readers_writer");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (use-after-free)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(owner_on_cpu\(task \d\) reads the task_struct of a task that exited before)"))) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(rwsem_readers_writer: the counterexample's run went through the patched lines kernel/locking/rwsem\.c:72\d)")))
      << r.out;
}

// b613c7f31476 undone: rwsem_try_write_lock marks the waiter that set RWSEM_FLAG_HANDOFF, first
// or not, and lets only the first go on. A SCHED_FIFO writer queued second then spins in the
// handoff retry while the first waiter, on its CPU, cannot run: a livelock only a lock holder on
// another CPU reveals (rwsem_rt_writer_queue, two CPUs, reduced).
TEST(KernelRwsem, ANonFirstRtWaiterSpinningOnItsOwnHandoffIsALivelock) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_with_rwsem_edits(
      "rwsem_b613",
      {{std::regex(R"(if \(first->handoff_set && \(waiter != first\)\)\n(\t+)return false;)"),
        "if (waiter != first)\n$1return false;\n\t\t\twaiter->handoff_set = true;"},
       {std::regex(R"(\tfirst->handoff_set = true;)"), "\twaiter->handoff_set = true;"}},
      "rwsem_rt_writer_queue");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (livelock)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("task 2 (SCHED_FIFO, CPU 0) spins in rwsem_spin_on_owner (the handoff retry"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(rwsem_rt_writer_queue: the counterexample's run went through the patched lines kernel/locking/rwsem\.c:6[25]\d)")))
      << r.out;
}

// The handoff check on the tree's code (model/kshim/rwsem_register.h): a reader whose slow path
// steals the lock although RWSEM_FLAG_HANDOFF hands it to the queued writer is caught, as the
// hand model's reader_steal_ignores_handoff is.
TEST(KernelRwsem, AReaderStealThatIgnoresHandoffIsCaught) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_with_rwsem_edit(
      "rwsem_handoff_steal", std::regex(R"(if \(!\(count & \(RWSEM_WRITER_LOCKED \| RWSEM_FLAG_HANDOFF\)\)\) \{\n(\t\trwsem_set_reader_owned))"),
      "if (!(count & RWSEM_WRITER_LOCKED)) {\n$1", "rwsem_handoff");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (handoff)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(task \d took sem for read \(by its own reader bias\) while RWSEM_FLAG_HANDOFF hands it to task \d, still queued)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(rwsem_handoff: the counterexample's run went through the patched lines kernel/locking/rwsem\.c:101\d)")))
      << r.out;
}

// The same check for writers: rwsem_try_write_lock without its test that the first waiter holds
// the hand-off lets a later writer take the lock from it.
TEST(KernelRwsem, AWriterThatIgnoresTheFirstWaitersHandoffIsCaught) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_with_rwsem_edit("rwsem_handoff_first",
                                    std::regex(R"(\t+if \(first->handoff_set && \(waiter != first\)\)\n\t+return false;\n)"), "",
                                    "rwsem_handoff_two_writers");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(counterexample \(handoff\)[^\n]*\n +task \d took sem for write while RWSEM_FLAG_HANDOFF hands it to task \d, still queued)")))
      << r.out;
}

// rwsem_del_waiter that clears only RWSEM_FLAG_WAITERS when the queue empties leaves the
// hand-off bit of a signalled first waiter behind: the scenario's count check sees it.
TEST(KernelRwsem, AHandoffBitLeftByTheLastWaiterIsACountLeak) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  BinaryRun r = run_with_rwsem_edit("rwsem_handoff_left", std::regex(R"(atomic_long_andnot\(RWSEM_FLAG_HANDOFF \| RWSEM_FLAG_WAITERS, )"),
                                    "atomic_long_andnot(RWSEM_FLAG_WAITERS, ", "rwsem_killable_writer");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (count leak)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("count is 0x4 after every unlock"), std::string::npos) << r.out;
}

// CPUs and preemption (model/preempt.hpp): the tree's __down_write_common verifies with an RT
// writer sharing the normal writer's CPU; with the write trylock moved out of its
// preempt_disable() (the window 48dfb5d2560d closed: count taken, sem->owner not yet set), the
// RT writer preempts the owner there and spins on the NULL owner for ever: a livelock.
TEST(KernelRwsem, AWriteTrylockOutsidePreemptDisableLivelocksAnRtWriter) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  const std::string tree = debian_rwsem_tree("rwsem_preempt");
  ASSERT_FALSE(tree.empty());
  std::string rwsem_c = read(tree + "/kernel/locking/rwsem.c");
  std::string preemptible = std::regex_replace(
      rwsem_c,
      std::regex(R"(\tpreempt_disable\(\);\n(\tif \(unlikely\(!rwsem_write_trylock\(sem\)\)\) \{\n)(\t\tif \(IS_ERR\(rwsem_down_write_slowpath\(sem, state\)\)\)\n\t\t\tret = -EINTR;\n)\t\}\n\tpreempt_enable\(\);)"),
      "$1\t\tpreempt_disable();\n$2\t\tpreempt_enable();\n\t}");
  ASSERT_NE(preemptible, rwsem_c);
  BinaryRun r = run_vmaverify("kernel --quiet rwsem_rt_writer");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  std::string patch = make_patch(tree, "kernel/locking/rwsem.c", preemptible);
  r = run_vmaverify("kernel --patch '" + patch + "' rwsem_rt_writer");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (livelock)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("task 1 (SCHED_FIFO, CPU 0) spins in rwsem_spin_on_owner"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(hunk kernel/locking/rwsem\.c:1\d\d\d[^\n]*: executed)"))) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(rwsem_rt_writer: the counterexample's run went through the patched lines kernel/locking/rwsem\.c:13\d\d)")))
      << r.out;
}

// The reader's side of the same window (3f5245538a19): __down_read_common as it was before the
// fix, the read trylock outside any preempt_disable(). A reader preempted between its bias and
// rwsem_set_reader_owned leaves the RT writer spinning on a NULL owner.
TEST(KernelRwsem, AReadTrylockOutsidePreemptDisableLivelocksAnRtWriter) {
  if (!real_tree_installed()) GTEST_SKIP() << "linux-source-6.12 is not installed";
  const std::string tree = debian_rwsem_tree("rwsem_preempt_read");
  ASSERT_FALSE(tree.empty());
  std::string rwsem_c = read(tree + "/kernel/locking/rwsem.c");
  const std::string fixed =
      "\tpreempt_disable();\n"
      "\tif (!rwsem_read_trylock(sem, &count)) {\n"
      "\t\tif (IS_ERR(rwsem_down_read_slowpath(sem, count, state))) {\n"
      "\t\t\tret = -EINTR;\n"
      "\t\t\tgoto out;\n"
      "\t\t}\n"
      "\t\tDEBUG_RWSEMS_WARN_ON(!is_rwsem_reader_owned(sem), sem);\n"
      "\t}\n"
      "out:\n"
      "\tpreempt_enable();\n";
  const std::string before_fix =
      "\tif (!rwsem_read_trylock(sem, &count)) {\n"
      "\t\tpreempt_disable();\n"
      "\t\tif (IS_ERR(rwsem_down_read_slowpath(sem, count, state)))\n"
      "\t\t\tret = -EINTR;\n"
      "\t\telse\n"
      "\t\t\tDEBUG_RWSEMS_WARN_ON(!is_rwsem_reader_owned(sem), sem);\n"
      "\t\tpreempt_enable();\n"
      "\t}\n";
  const size_t at = rwsem_c.find(fixed);
  ASSERT_NE(at, std::string::npos);
  std::string preemptible = rwsem_c;
  preemptible.replace(at, fixed.size(), before_fix);
  BinaryRun r = run_vmaverify("kernel --quiet rwsem_rt_writer_reader");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  std::string patch = make_patch(tree, "kernel/locking/rwsem.c", preemptible);
  r = run_vmaverify("kernel --patch '" + patch + "' rwsem_rt_writer_reader");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("counterexample (livelock)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("task 1 (SCHED_FIFO, CPU 0) spins in rwsem_spin_on_owner"), std::string::npos) << r.out;
}
