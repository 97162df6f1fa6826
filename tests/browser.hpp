// Loading a page in headless Chromium (Debian's `chromium`, installed by .ci/setup): the DOM
// after its scripts ran, what it wrote to the console, a screenshot.
#pragma once
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <gtest/gtest.h>

struct BrowserRun {
  int status = -1;
  std::string dom;                    // --dump-dom: the serialised DOM after load
  std::vector<std::string> console;   // every console message of the page (logs, errors, exceptions)
};

inline std::string slurp(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Chromium as root needs --no-sandbox; the profile goes to a fresh directory so that runs do
// not share state. `mode` is "--dump-dom" or "--screenshot=FILE --window-size=W,H".
inline BrowserRun run_chromium(const std::string& url, const std::string& mode) {
  std::string dir = testing::TempDir() + "vmaverify_chromium_XXXXXX";
  BrowserRun b;
  if (!mkdtemp(&dir[0])) return b;
  const std::string err = dir + "/stderr", out = dir + "/stdout";
  std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run "
                    "--enable-logging=stderr --v=0 --user-data-dir='" + dir + "/profile' " + mode + " '" + url +
                    "' >'" + out + "' 2>'" + err + "'";
  int st = std::system(cmd.c_str());
  b.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  b.dom = slurp(out);
  // Chromium logs each console message of the page as "[...:INFO:CONSOLE:LINE] "text", source: URL (LINE)".
  std::istringstream lines(slurp(err));
  for (std::string line; std::getline(lines, line);)
    if (line.find(":CONSOLE") != std::string::npos) b.console.push_back(line);
  std::system(("rm -rf '" + dir + "'").c_str());
  return b;
}

inline bool chromium_installed() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }
