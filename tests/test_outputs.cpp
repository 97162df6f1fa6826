// What the tool writes is what the user asked for, whole or not at all: no write through a
// symbolic link, a full disk is an error naming the file (exit 2), a selection of nothing or a
// malformed spec is refused before anything runs, and `run --jobs` takes its shards with it
// when it is stopped.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <string>
#include "tests/run_binary.hpp"

namespace {

std::string fresh_dir(const std::string& name) {
  std::string d = testing::TempDir() + "outputs_" + name + "_XXXXXX";
  return mkdtemp(&d[0]) ? d : "";
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(Outputs, NoWriteFollowsASymbolicLink) {
  const std::string d = fresh_dir("links");
  std::ofstream(d + "/target") << "keep me\n";
  ASSERT_EQ(symlink((d + "/target").c_str(), (d + "/junit.xml").c_str()), 0);
  expect_usage_error(run_vmaverify("all --junit '" + d + "/junit.xml' --quiet"), "--junit through a link");
  EXPECT_EQ(read(d + "/target"), "keep me\n");

  // A report directory whose src/ leads out of it, and whose index.html is a link.
  const std::string trace = d + "/cx.json";
  ASSERT_EQ(run_vmaverify("run rwsem_reader_writer --mutant up_read_no_wake --trace '" + trace + "' --quiet").status, 1);
  const std::string report = d + "/report";
  ASSERT_EQ(mkdir(report.c_str(), 0777), 0);
  ASSERT_EQ(symlink("..", (report + "/src").c_str()), 0);
  BinaryRun r = run_vmaverify("report '" + trace + "' --output '" + report + "'");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("not a directory of its own"), std::string::npos) << r.err;
  struct stat st;
  EXPECT_NE(lstat((d + "/model").c_str(), &st), 0) << "a page was written outside the report directory";
  unlink((report + "/src").c_str());
  ASSERT_EQ(symlink((d + "/target").c_str(), (report + "/index.html").c_str()), 0);
  r = run_vmaverify("report '" + trace + "' --output '" + report + "'");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(read(d + "/target"), "keep me\n");
}

TEST(Outputs, AFullDiskIsAnErrorNamingTheOutput) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  BinaryRun r = run_vmaverify("list --json > /dev/full");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("cannot write standard output"), std::string::npos) << r.err;
  expect_usage_error(run_vmaverify("all --junit /dev/full --quiet"), "--junit on a device");
  r = run_vmaverify("run rwsem_two_writers --json --quiet > /dev/full");
  EXPECT_EQ(r.status, 2) << r.err;
}

TEST(Outputs, NothingRunsOnASelectionOfNothingOrAMalformedSpec) {
  expect_usage_error(run_vmaverify("all --skip '*' --quiet"), "a selection of nothing");
  const std::string d = fresh_dir("specs");
  ASSERT_EQ(std::system(("cp " + std::string(VMAVERIFY_SOURCE) + "/proofs/specs/*.smt2 '" + d + "/'").c_str()), 0);
  std::ofstream(d + "/zz_broken.smt2") << "(assert (and count\n";
  BinaryRun r = run_vmaverify("all --specs '" + d + "' --quiet");
  expect_usage_error(r, "a malformed spec");
  EXPECT_NE(r.err.find("zz_broken.smt2"), std::string::npos) << r.err;
}

// A shard's process that cannot start says why (not "Success").
TEST(Outputs, AShardThatCannotStartSaysWhy) {
  const std::string cmd = "bash -c 'ulimit -n 16; exec " + std::string(VMAVERIFY_BIN) +
                          " run rwsem_two_writers --search full --jobs 40 --quiet' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = pclose(p);
  EXPECT_NE(WEXITSTATUS(st), 0) << out;
  EXPECT_EQ(out.find("Success"), std::string::npos) << out;
  EXPECT_NE(out.find("cannot start its process: Too many open files"), std::string::npos) << out;
}

TEST(Outputs, StoppingRunJobsStopsItsShards) {
  const std::string marker = testing::TempDir() + "jobs_marker";
  // The shards are forks of the parent: the same command line, which names this marker trace.
  const std::string cmd = std::string(VMAVERIFY_BIN) + " run rwsem_writers_reader --search full --jobs 2 --quiet --trace '" + marker + "'";
  FILE* p = popen(("exec " + cmd + " > /dev/null 2>&1 & echo $!").c_str(), "r");
  ASSERT_NE(p, nullptr);
  long pid = 0;
  ASSERT_EQ(fscanf(p, "%ld", &pid), 1);
  pclose(p);
  sleep(2);  // the shards have started exploring
  auto running = [&] {
    FILE* c = popen(("pgrep -f -c -- \"--trace '?" + marker + "\"").c_str(), "r");
    int n = -1;
    if (c && fscanf(c, "%d", &n) != 1) n = -1;
    if (c) pclose(c);
    return n;
  };
  ASSERT_EQ(running(), 3) << "the parent and its two shards";
  ASSERT_EQ(kill((pid_t)pid, SIGTERM), 0);
  sleep(2);
  EXPECT_EQ(running(), 0) << "shard processes left running after SIGTERM to run --jobs";
  std::system(("pkill -f -- \"--trace '?" + marker + "\"").c_str());
}
