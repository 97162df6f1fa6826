// Running the vmaverify binary from a test, with stdout and stderr kept apart.
#pragma once
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <gtest/gtest.h>

struct BinaryRun {
  int status;  // exit status, or -1 when it did not exit (a crash)
  std::string out, err;
};

// `args` go through /bin/sh: quote what needs quoting.
inline BinaryRun run_vmaverify(const std::string& args) {
  std::string err_file = testing::TempDir() + "vmaverify_stderr_XXXXXX";
  int fd = mkstemp(&err_file[0]);
  if (fd >= 0) close(fd);
  std::string cmd = std::string(VMAVERIFY_BIN) + " " + args + " 2>'" + err_file + "'";
  FILE* p = popen(cmd.c_str(), "r");
  BinaryRun r{-1, "", ""};
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::remove(err_file.c_str());
  return r;
}

// The usage contract: exit 2, nothing on stdout, exactly one line on stderr.
inline void expect_usage_error(const BinaryRun& r, const std::string& what) {
  EXPECT_EQ(r.status, 2) << what << "\nstderr: " << r.err;
  EXPECT_EQ(r.out, "") << what;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << "\nstderr: " << r.err.substr(0, 500);
  EXPECT_EQ(r.err.rfind("vmaverify: ", 0), 0u) << what << "\nstderr: " << r.err.substr(0, 500);
}
