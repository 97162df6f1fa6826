#include "verify/coverage/coverage_measure.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

extern char** environ;
namespace fs = std::filesystem;

#ifdef VMAVERIFY_COVERAGE_BUILD
extern "C" void __gcov_dump(void);
extern "C" void __gcov_reset(void);

bool coverage_measured() { return true; }
std::string default_coverage_exceptions() { return std::string(VMAVERIFY_SOURCE_DIR) + "/verify/coverage/coverage_exceptions.txt"; }

void coverage_reset() {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(VMAVERIFY_BINARY_DIR, ec); !ec && it != fs::recursive_directory_iterator();
       ++it)
    if (it->path().extension() == ".gcda") fs::remove(it->path(), ec);
  __gcov_reset();
}

// gcovr over the build's counters; its own output goes to LOG. "" on success, else why not.
static std::string run_gcovr(const std::string& src, const std::string& bin, const std::string& json_out,
                             const std::string& html, const std::string& log) {
  std::vector<std::string> args = {"gcovr", "--root", src, "--object-directory", bin, "--filter", "model/",
                                   "--exclude-unreachable-branches", "--exclude-throw-branches",
                                   // the checker's own checks are not kernel branches
                                   "--exclude-lines-by-pattern", ".*(VM_CHECK|RL_ASSERT)\\(.*", "--json", json_out};
  if (!html.empty()) {
    fs::create_directories(html);
    args.insert(args.end(), {"--html-details", html + "/index.html"});
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, "gcovr", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return "cannot run gcovr (apt-get install gcovr): " + std::string(std::strerror(rc));
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "gcovr failed; its output is in " + log;
  return "";
}

std::string coverage_collect(const std::string& html_dir, std::vector<CoverageException>* exceptions,
                             CoverageReport* out) {
  __gcov_dump();
  const std::string src = VMAVERIFY_SOURCE_DIR, bin = VMAVERIFY_BINARY_DIR;
  const std::string json_out = bin + "/coverage.json", log = bin + "/gcovr.log";
  std::string err = run_gcovr(src, bin, json_out, html_dir, log);
  if (!err.empty()) return err;
  nlohmann::json report;
  try {
    std::ifstream in(json_out);
    report = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return json_out + ": not gcovr's JSON: " + e.what();
  }
  if (!coverage_report(report, src, exceptions, out, &err)) return err;
  return "";
}
#else
bool coverage_measured() { return false; }
std::string default_coverage_exceptions() { return "verify/coverage/coverage_exceptions.txt"; }
void coverage_reset() {}
std::string coverage_collect(const std::string&, std::vector<CoverageException>*, CoverageReport*) {
  return "this vmaverify is not built for coverage; build one with `cmake --preset coverage && cmake --build --preset "
         "coverage` and run build-coverage/vmaverify";
}
#endif
