#include "verify/kernel/kernel_build.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include "verify/build_id.hpp"
#include "verify/kernel_toolchain.hpp"

// This binary's build (verify/build_id.hpp), kept whole in its bytes and in the base library's.
extern const char kBuildIdMarker[];
__attribute__((used)) const char kBuildIdMarker[] = "vmaverify-build-id:" VMAVERIFY_BUILD_ID;

namespace {

// The tree's functions that open no call-chain frame (model/call_chain.hpp), matched as
// substrings of their names (as GCC's -finstrument-functions-exclude-function-list matches):
// rwsem.c's one-line accessors of sem->owner. Called at every turn of the spin loops, their
// hooks made the searches about a fifth slower; as leaves they end a chain as the row's own
// function anyway. The extraction leaves them out of its name tables too: a table entry takes a
// function's address, which would keep an out-of-line copy that never runs (a coverage gap).
const char* const kNoFrameFunctions[] = {"rwsem_owner",     "rwsem_test_oflags",      "is_rwsem_reader_owned",
                                         "rwsem_set_owner", "rwsem_clear_owner",      "rwsem_set_reader_owned",
                                         "rwsem_clear_reader_owned", "owner_on_cpu"};

// The files the extraction looks in (verify/kernel/kernel_extract.py: v6.12 and v6.11 layouts, rwsem.c).
const char* const kTreeFiles[] = {"mm/vma.c",    "mm/vma.h",   "mm/mmap.c",
                                  "mm/internal.h", "mm/memory.c", "kernel/locking/rwsem.c"};
// The default tree's files in the cache; the name changes with the list above, so that an older
// cache (without rwsem.c) is extracted again rather than used.
const char* const kDefaultTreeDir = "linux-source-6.12-files2";

bool is_dir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool read_file(const std::string& p, std::string* out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}
bool mkdirs(const std::string& p) {
  for (size_t i = 1; i <= p.size(); i++)
    if (i == p.size() || p[i] == '/') {
      std::string d = p.substr(0, i);
      if (mkdir(d.c_str(), 0777) != 0 && errno != EEXIST) return false;
    }
  return true;
}
bool copy_file(const std::string& from, const std::string& to) {
  std::string text;
  if (!read_file(from, &text)) return false;
  size_t slash = to.rfind('/');
  if (slash != std::string::npos && !mkdirs(to.substr(0, slash))) return false;
  std::ofstream out(to, std::ios::binary);
  out << text;
  return bool(out);
}
void remove_tree(const std::string& dir) {
  if (dir.empty()) return;
  pid_t pid = fork();
  if (pid == 0) {
    execlp("rm", "rm", "-rf", "--", dir.c_str(), (char*)nullptr);
    _exit(127);
  }
  int st;
  if (pid > 0) waitpid(pid, &st, 0);
}

// A SIGINT, SIGTERM or SIGHUP while the checker is built: the step running is stopped, and the
// build returns with its scratch directories removed (build_kernel_checker), then the signal
// ends vmaverify as it would have.
volatile sig_atomic_t g_interrupted = 0;
volatile pid_t g_step = 0;
void interrupt_build(int sig) {
  g_interrupted = sig;
  if (g_step > 0) kill(g_step, SIGTERM);
}

// Run argv with stdout and stderr to log (appended); the exit status, or -1 if it did not run.
int run_logged(const std::vector<std::string>& argv, const std::string& log, const std::string& cwd = "") {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  g_step = pid;
  if (g_interrupted) kill(pid, SIGTERM);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      g_step = 0;
      return -1;
    }
  g_step = 0;
  if (g_interrupted) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string first_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) return line;
  return "";
}

// FNV-1a over everything that decides the checker: its key in the cache.
struct Hash {
  unsigned long long h = 1469598103934665603ULL;
  void add(const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  }
  std::string hex() const {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", h);
    return b;
  }
};

std::string cache_dir() { return KERNEL_CACHE_DIR; }


// The build ids in a library's bytes ("vmaverify-build-id:" and 16 hex digits).
std::set<std::string> build_ids_in(const std::string& bytes) {
  std::set<std::string> ids;
  const std::string prefix(kBuildIdMarker, sizeof kBuildIdMarker - 1 - 16);
  for (size_t at = bytes.find(prefix); at != std::string::npos; at = bytes.find(prefix, at + 1)) {
    const std::string id = bytes.substr(at + prefix.size(), 16);
    if (id.size() == 16 && id.find_first_not_of("0123456789abcdef") == std::string::npos) ids.insert(id);
  }
  return ids;
}

// A directory of its own under the cache (removed by the caller).
std::string scratch_dir(const std::string& what) {
  if (!mkdirs(cache_dir())) return "";
  std::string t = cache_dir() + "/" + what + ".XXXXXX";
  std::vector<char> buf(t.begin(), t.end());
  buf.push_back('\0');
  return mkdtemp(buf.data()) ? std::string(buf.data()) : "";
}

// A scratch directory, removed with everything in it when it goes out of scope.
struct ScratchDir {
  std::string path;
  explicit ScratchDir(const std::string& what) : path(scratch_dir(what)) {}
  ~ScratchDir() { remove_tree(path); }
};

// The default tree: the files needed, extracted from Debian's tarball into the cache once.
std::string default_tree(std::string* error) {
  const std::string tarball = default_kernel_tarball();
  const std::string top = "linux-source-6.12";
  const std::string tree = cache_dir() + "/" + kDefaultTreeDir;
  if (is_file(tree + "/.extracted")) return tree;
  if (!is_file(tarball)) {
    *error = "no kernel tree: " + tarball + " is not installed (apt-get install linux-source-6.12, or give --tree DIR)";
    return "";
  }
  std::string tmp = scratch_dir("extract");
  if (tmp.empty()) {
    *error = "cannot create a directory in " + cache_dir() + ": " + std::strerror(errno);
    return "";
  }
  std::vector<std::string> argv = {"tar", "-xJf", tarball, "-C", tmp, "--ignore-failed-read"};
  for (const char* f : kTreeFiles) argv.push_back(top + "/" + f);
  const std::string log = tmp + ".log";
  int st = run_logged(argv, log);
  // A member missing from the tarball (an older or newer layout) is for the extraction to name.
  if (st != 0 && !is_dir(tmp + "/" + top + "/mm") && !is_dir(tmp + "/" + top + "/kernel")) {
    std::string text;
    read_file(log, &text);
    *error = tarball + ": cannot extract: " + first_line(text);
    remove_tree(tmp);
    return "";
  }
  std::ofstream(tmp + "/" + top + "/.extracted") << tarball << "\n";
  if (rename((tmp + "/" + top).c_str(), tree.c_str()) != 0 && !is_file(tree + "/.extracted")) {
    *error = "cannot move the extracted tree to " + tree + ": " + std::strerror(errno);
    remove_tree(tmp);
    return "";
  }
  remove_tree(tmp);
  std::remove(log.c_str());
  return tree;
}

// The files a patch names ("+++ b/PATH", "--- a/PATH"), as paths inside the tree (-p1).
std::set<std::string> patched_files(const std::string& text) {
  std::set<std::string> files;
  static const std::regex header(R"(^(?:\+\+\+|---) ([^\t\n]+))");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, header)) continue;
    std::string p = m[1];
    size_t slash = p.find('/');
    if (p == "/dev/null" || slash == std::string::npos) continue;
    p = p.substr(slash + 1);
    if (p.find("..") == std::string::npos && !p.empty() && p[0] != '/') files.insert(p);
  }
  return files;
}

// patch's own words for a hunk that failed: "hunk #2 of mm/vma.c FAILED at 1580".
std::string patch_failure(const std::string& out) {
  std::istringstream in(out);
  std::string file, line;
  // --forward: patch found every change already made ("Reversed (or previously applied)").
  if (out.find("Reversed (or previously applied) patch detected") != std::string::npos) {
    static const std::regex patching_file(R"(patching file '?([^'\n]+)'?)");
    std::smatch m;
    return std::string("already applied to the tree (patch found it reversed or previously applied") +
           (std::regex_search(out, m, patching_file) ? " in " + m[1].str() : std::string()) + ")";
  }
  static const std::regex patching(R"(^patching file '?([^']+)'?$)"), hunk(R"(^Hunk #(\d+) FAILED at (\d+))");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, patching)) file = m[1];
    else if (std::regex_search(line, m, hunk))
      return "hunk #" + m[1].str() + " of " + (file.empty() ? "?" : file) + " FAILED at line " + m[2].str();
  }
  for (std::istringstream again(out); std::getline(again, line);)
    if (line.find("can't find file") != std::string::npos || line.find("Only garbage") != std::string::npos ||
        line.find("malformed") != std::string::npos || line.find("doesn't exist") != std::string::npos ||
        line.find("No file to patch") != std::string::npos)
      return line + (file.empty() ? "" : " (at " + file + ")");
  return first_line(out).empty() ? "patch failed" : first_line(out);
}

// The compiler's first errors, and the kernel APIs the shim lacks (names it says are undeclared).
std::string compile_errors(const std::string& log) {
  static const std::regex error_line(R"(([^\s:]+:\d+(?::\d+)?): error: ([^\n]*))");
  // gcc quotes with ' or, in a UTF-8 locale, with U+2018 / U+2019.
  static const std::regex undeclared("error: (?:'|\xe2\x80\x98)([A-Za-z_]\\w*)(?:'|\xe2\x80\x99) was not declared");
  std::string first;
  int shown = 0;
  std::set<std::string> missing;
  for (std::sregex_iterator i(log.begin(), log.end(), error_line), end; i != end; ++i) {
    if (shown++ < 2) first += std::string(first.empty() ? "" : "; ") + (*i)[1].str() + ": " + (*i)[2].str();
    std::smatch m;
    const std::string whole = (*i)[0];
    if (std::regex_search(whole, m, undeclared)) missing.insert(m[1]);
  }
  std::string lacks;
  for (const std::string& n : missing) lacks += (lacks.empty() ? "" : ", ") + n;
  if (first.empty()) first = "no error line in the compiler's output";
  return first + (lacks.empty() ? "" : " (the shim lacks " + lacks + ": add it to model/kshim/)");
}

// The model's files (model/ and model/kshim/), sorted: what the shim may include.
// Every file under root (recursively), relative to it, sorted; dot files left out.
void list_files(const std::string& root, const std::string& sub, std::vector<std::string>* files) {
  DIR* d = opendir((root + (sub.empty() ? "" : "/" + sub)).c_str());
  if (!d) return;
  for (dirent* e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    const std::string rel = sub.empty() ? e->d_name : sub + "/" + e->d_name;
    struct stat st;
    if (lstat((root + "/" + rel).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) list_files(root, rel, files);
    else if (S_ISREG(st.st_mode)) files->push_back(rel);
  }
  closedir(d);
}

// Keep the cache from piling up: of the entries named prefix*, all but the newest `most` (by
// modification time; `keep`, the one in use, always stays) are removed. Failed builds are
// kept for reading their logs (the newest five), checkers for reuse (the sixteen used last: a
// cache hit touches its entry).
void prune_cache(const char* prefix, const std::string& keep, size_t most) {
  std::vector<std::pair<time_t, std::string>> found;
  DIR* d = opendir(cache_dir().c_str());
  if (!d) return;
  for (dirent* e; (e = readdir(d));) {
    const std::string path = cache_dir() + "/" + e->d_name;
    struct stat st;
    if (std::strncmp(e->d_name, prefix, std::strlen(prefix)) == 0 && path != keep && lstat(path.c_str(), &st) == 0 &&
        S_ISDIR(st.st_mode))
      found.push_back({st.st_mtime, path});
  }
  closedir(d);
  std::sort(found.rbegin(), found.rend());
  for (size_t i = most - 1; i < found.size(); i++) remove_tree(found[i].second);  // with `keep`, `most`
}

// A hunk that applied at an offset or with fuzz is applied, but not as written: said on stderr.
void warn_inexact_hunks(const std::string& patch, const std::string& log) {
  std::string out;
  read_file(log, &out);
  std::istringstream in(out);
  std::string file;
  static const std::regex patching(R"(^patching file '?([^']+)'?$)"), inexact(R"(^Hunk #(\d+) succeeded at (\d+)(.*?)\.?$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, patching)) file = m[1];
    else if (std::regex_search(line, m, inexact))
      std::fprintf(stderr, "vmaverify: kernel: --patch %s: hunk #%s of %s applied at line %s%s, not where the patch says\n",
                   patch.c_str(), m[1].str().c_str(), file.c_str(), m[2].str().c_str(), m[3].str().c_str());
  }
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string w; in >> w;) v.push_back(w);
  return v;
}

}  // namespace

const char* default_kernel_tarball() { return "/usr/src/linux-source-6.12.tar.xz"; }
bool default_kernel_tree_available() {
  return is_file(default_kernel_tarball()) || is_file(cache_dir() + "/" + kDefaultTreeDir + "/.extracted");
}

static KernelBuild build_checker_steps(const std::string& tree_arg, const std::vector<std::string>& patches, bool progress,
                                       bool count_lines, const std::vector<std::string>& configs);

std::string checker_cache_key(const std::vector<std::string>& units, const std::string& snapshot_root,
                              const std::string& base_library, const std::string& toolchain) {
  Hash h;
  for (const std::string& g : units) {
    std::string text;
    read_file(g, &text);
    h.add(g.substr(g.rfind('/')) + text);
  }
  std::vector<std::string> files;
  list_files(snapshot_root, "", &files);
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    std::string text;
    read_file(snapshot_root + "/" + f, &text);
    h.add(f + "\n" + text);
  }
  h.add(base_library);
  h.add(toolchain);
  return h.hex();
}

const std::vector<std::string>& kernel_config_defaults() {
  static const std::vector<std::string> d = {"CONFIG_RWSEM_SPIN_ON_OWNER=y", "CONFIG_DEBUG_RWSEMS=n"};
  return d;
}
bool kernel_config_known(const std::string& setting) {
  const size_t eq = setting.find('=');
  if (eq == std::string::npos || (setting.substr(eq) != "=y" && setting.substr(eq) != "=n")) return false;
  for (const std::string& d : kernel_config_defaults())
    if (d.compare(0, eq + 1, setting, 0, eq + 1) == 0) return true;
  return false;
}

KernelBuild build_kernel_checker(const std::string& tree_arg, const std::vector<std::string>& patches, bool progress,
                                 bool count_lines, const std::vector<std::string>& configs) {
  struct sigaction stop = {}, old_int, old_term, old_hup;
  stop.sa_handler = interrupt_build;
  g_interrupted = 0;
  sigaction(SIGINT, &stop, &old_int);
  sigaction(SIGTERM, &stop, &old_term);
  sigaction(SIGHUP, &stop, &old_hup);
  KernelBuild b = build_checker_steps(tree_arg, patches, progress, count_lines, configs);  // its scratch directories gone
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  if (g_interrupted) {
    b.interrupted = g_interrupted;
    b.error = "interrupted (signal " + std::to_string(g_interrupted) + ") while building the checker";
    b.checker.clear();
  }
  return b;
}

static KernelBuild build_checker_steps(const std::string& tree_arg, const std::vector<std::string>& patches, bool progress,
                                       bool count_lines, const std::vector<std::string>& configs) {
  KernelBuild b;
  std::string tree = tree_arg;
  if (tree.empty()) {
    if (progress && !is_file(cache_dir() + "/" + kDefaultTreeDir + "/.extracted") && is_file(default_kernel_tarball()))
      std::fprintf(stderr, "vmaverify kernel: extracting the files needed from %s (once)\n", default_kernel_tarball());
    tree = default_tree(&b.error);
    b.tree = default_kernel_tarball();
    if (tree.empty()) return b;
  } else {
    b.tree = tree;
    if (!is_dir(tree)) {
      b.error = "--tree " + tree + ": not a directory";
      return b;
    }
  }
  const std::string name = tree_arg.empty() ? b.tree : "--tree " + tree;
  for (const std::string& p : patches)
    if (!is_file(p)) {
      b.error = "--patch " + p + ": no such file";
      return b;
    }

  // The scratch copy: the files the extraction reads and those the patches touch.
  const ScratchDir scratch_tree("tree");
  const std::string& scratch = scratch_tree.path;
  if (scratch.empty()) {
    b.error = "cannot create a directory in " + cache_dir() + ": " + std::strerror(errno);
    return b;
  }
  std::set<std::string> files(std::begin(kTreeFiles), std::end(kTreeFiles));
  for (const std::string& p : patches) {
    std::string text;
    if (!read_file(p, &text)) {
      b.error = "--patch " + p + ": cannot read: " + std::strerror(errno);
      return b;
    }
    std::set<std::string> touched = patched_files(text);
    if (touched.empty()) {
      b.error = "--patch " + p + ": not a patch (no \"--- a/FILE\" / \"+++ b/FILE\" lines)";
      return b;
    }
    files.insert(touched.begin(), touched.end());
  }
  bool any = false;
  for (const std::string& f : files)
    if (is_file(tree + "/" + f)) {
      if (!copy_file(tree + "/" + f, scratch + "/" + f)) {
        b.error = name + ": cannot copy " + f + " to the scratch tree";
        return b;
      }
      any = true;
    }
  if (!any) {
    b.error = name + ": none of mm/vma.c, mm/mmap.c, mm/memory.c, kernel/locking/rwsem.c is in this tree";
    return b;
  }
  // Logs and generated code go to a directory of their own, made fresh: nothing the patches
  // create in the scratch tree (a symbolic link named like an output) can redirect a write.
  const ScratchDir generated_dir("generated");
  const std::string& gen = generated_dir.path;
  if (gen.empty()) {
    b.error = "cannot create a directory in " + cache_dir() + ": " + std::strerror(errno);
    return b;
  }
  for (const std::string& p : patches) {
    const std::string log = gen + "/.patch.log";
    std::remove(log.c_str());
    char* abs = realpath(p.c_str(), nullptr);
    std::string path = abs ? abs : p;
    free(abs);
    int st = run_logged({"patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-r", "-", "-i", path}, log,
                        scratch);
    if (st != 0) {
      std::string out;
      read_file(log, &out);
      b.error = "--patch " + p + " does not apply: " +
                (st == 127 && out.find("cannot run") != std::string::npos ? "patch is not installed (apt-get install patch)"
                                                                         : patch_failure(out));
      return b;
    }
    warn_inexact_hunks(p, log);
  }

  // Extraction (libclang): a tree that does not serve is one line naming the function and file.
  const std::string generated = gen + "/kernel_source.cpp", generated_rwsem = gen + "/kernel_rwsem.cpp",
                    extract_log = gen + "/.extract.log";
  std::vector<std::string> extract = {KERNEL_PYTHON, std::string(KERNEL_SNAPSHOT_DIR) + "/verify/kernel/kernel_extract.py"};
  for (const std::string& c : configs) extract.insert(extract.end(), {"--config", c});
  for (const char* f : kNoFrameFunctions) extract.insert(extract.end(), {"--no-frame", f});
  extract.insert(extract.end(), {scratch, generated, generated_rwsem});
  int st = run_logged(extract, extract_log);
  if (st != 0) {
    std::string out;
    read_file(extract_log, &out);
    std::string line = first_line(out);
    if (st == 127 || line.empty()) line = "cannot run " + std::string(KERNEL_PYTHON) + " verify/kernel/kernel_extract.py";
    b.error = name + (patches.empty() ? "" : " (patched)") + ": " + line;
    return b;
  }

  // The cache key: the extracted code, the snapshot (the shim, the model and proofs headers it
  // includes, the extraction script), the base library and the compiler command.
  // Each part is there when the tree has its files (at least one is, or the extraction failed).
  std::vector<std::string> units;
  for (const std::string& g : {generated, generated_rwsem})
    if (is_file(g)) units.push_back(g);
  // The base library, by content, and built from the same sources as this binary: a build
  // directory rebuilt from other sources while this binary runs would make a foreign checker.
  std::string base;
  if (!read_file(KERNEL_BASE_LIBRARY, &base)) {
    b.error = std::string("the checker's base library ") + KERNEL_BASE_LIBRARY +
              " is not built (cmake --build build --target vmaverify_kernel_base)";
    return b;
  }
  const std::set<std::string> ids = build_ids_in(base);
  if (ids != std::set<std::string>{VMAVERIFY_BUILD_ID}) {
    b.error = std::string("the checker's base library ") + KERNEL_BASE_LIBRARY + " was built from other sources (build " +
              (ids.empty() ? "unknown" : *ids.begin()) + ") than this vmaverify (" + VMAVERIFY_BUILD_ID +
              "): run the vmaverify of that build, or rebuild this one";
    return b;
  }
  // A patched build counts which kernel lines run (gcov), to say which hunks the scenarios ran.
  const bool coverage = !patches.empty() || count_lines;
  // Branch coverage (--coverage) counts each kernel branch once: a function inlined into two
  // callers would have its branches counted per copy, each copy reaching only some of them.
  const std::vector<std::string> coverage_flags =
      count_lines ? std::vector<std::string>{"--coverage", "-fprofile-info-section=gcov_info", "-fno-inline"}
      : coverage  ? std::vector<std::string>{"--coverage", "-fprofile-info-section=gcov_info"}
                  : std::vector<std::string>{};
  // Each function of the tree's code opens a frame of its task's call chain, for traces
  // (model/call_chain.hpp); the shim's, the model's and the libraries' functions do not, nor do
  // those of kNoFrameFunctions.
  std::string no_frames;
  for (const char* f : kNoFrameFunctions) no_frames += std::string(no_frames.empty() ? "" : ",") + f;
  const std::vector<std::string> chain_flags = {
      "-finstrument-functions",
      std::string("-finstrument-functions-exclude-file-list=model/,proofs/,/usr/include/,") + KERNEL_RELACY_INCLUDE,
      "-finstrument-functions-exclude-function-list=" + no_frames};
  std::string toolchain = std::string(KERNEL_CXX) + KERNEL_CXX_FLAGS + KERNEL_LINK_FLAGS;
  for (const std::string& f : coverage_flags) toolchain += " " + f;
  for (const std::string& f : chain_flags) toolchain += " " + f;
  const std::string key = checker_cache_key(units, KERNEL_SNAPSHOT_DIR, base, toolchain);
  const std::string dir = cache_dir() + "/checker-" + key;
  b.checker = dir + "/vmaverify-kernel";
  if (is_file(b.checker) && access(b.checker.c_str(), X_OK) == 0) {
    b.cached = true;
    utimes(dir.c_str(), nullptr);  // used now: the last to go when the cache is pruned
    return b;
  }

  // Compile and link in a directory of its own, then move it into place (concurrent runs).
  std::string work = scratch_dir("build");
  if (work.empty()) {
    b.error = "cannot create a directory in " + cache_dir() + ": " + std::strerror(errno);
    b.checker.clear();
    return b;
  }
  if (progress) std::fprintf(stderr, "vmaverify kernel: compiling the extracted code (once per tree and patches)\n");
  const std::string log = work + "/compile.log";
  std::vector<std::string> objects;
  st = 0;
  for (const std::string& g : units) {
    const std::string base = work + g.substr(g.rfind('/'), g.size() - g.rfind('/') - 4);  // "/kernel_source"
    copy_file(g, base + ".cpp");
    std::vector<std::string> cc = {KERNEL_CXX};
    for (const std::string& f : split(KERNEL_CXX_FLAGS)) cc.push_back(f);
    // The counters go in a section of their own, not to libgcov's exit handler: the code runs
    // contained, and the parent writes them (verify/kernel/kernel_sandbox.hpp).
    cc.insert(cc.end(), coverage_flags.begin(), coverage_flags.end());
    cc.insert(cc.end(), chain_flags.begin(), chain_flags.end());
    cc.insert(cc.end(), {"-I", KERNEL_SNAPSHOT_DIR, "-I", KERNEL_RELACY_INCLUDE, "-c", base + ".cpp", "-o", base + ".o"});
    st = run_logged(cc, log, work);
    if (st != 0) break;
    objects.push_back(base + ".o");
  }
  if (st == 0) {
    std::vector<std::string> ld = {KERNEL_CXX, "-o", work + "/vmaverify-kernel"};
    ld.insert(ld.end(), objects.begin(), objects.end());
    ld.insert(ld.end(), {"-Wl,--whole-archive", KERNEL_BASE_LIBRARY, "-Wl,--no-whole-archive"});
    for (const std::string& f : split(KERNEL_LINK_FLAGS)) ld.push_back(f);
    if (coverage) ld.insert(ld.end(), {"--coverage", "-Wl,-u,__gcov_info_to_gcda"});  // kernel_gcda_files calls it
    st = run_logged(ld, log, work);
    // Where the objects were compiled: the counters' files are named after it (read_kernel_counters).
    std::ofstream(work + "/objdir") << work;
  }
  if (st != 0) {
    // Kept for reading: the log and the code it is about, outside the cache's keyed entries.
    const std::string kept = cache_dir() + "/failed-" + key;
    if (g_interrupted) {  // no failure to keep: the build was stopped
      remove_tree(work);
      return b;
    }
    remove_tree(kept);
    rename(work.c_str(), kept.c_str());
    prune_cache("failed-", kept, 5);
    std::string log_text;
    read_file(kept + "/compile.log", &log_text);
    b.error = name + (patches.empty() ? "" : " (patched)") +
              ": the extracted code does not compile against the shim (model/kshim/): " + compile_errors(log_text) +
              "; compiler output in " + kept + "/compile.log";
    b.checker.clear();
    return b;
  }
  if (rename(work.c_str(), dir.c_str()) != 0) remove_tree(work);  // another run got there first
  if (!is_file(b.checker)) {
    b.error = "cannot move the checker into " + dir + ": " + std::strerror(errno);
    b.checker.clear();
    return b;
  }
  prune_cache("checker-", dir, 16);
  return b;
}

// Where a patched checker's line counters go (GCOV_PREFIX): a fresh directory in the cache, the
// checker's compile-time object directory stripped from the counters' paths.
bool prepare_kernel_line_counts(const std::string& checker, std::string* error) {
  const std::string dir = checker.substr(0, checker.rfind('/'));
  std::string objdir;
  if (!read_file(dir + "/objdir", &objdir) || objdir.empty()) {
    *error = "the checker " + checker + " records no object directory: rebuild it (remove " + dir + ")";
    return false;
  }
  const std::string run = scratch_dir("lines");
  if (run.empty()) {
    *error = "cannot create a directory in " + cache_dir() + ": " + std::strerror(errno);
    return false;
  }
  const long strip = std::count(objdir.begin(), objdir.end(), '/');
  setenv("GCOV_PREFIX", run.c_str(), 1);
  setenv("GCOV_PREFIX_STRIP", std::to_string(strip).c_str(), 1);
  return true;
}

void discard_kernel_line_counts() {
  const char* run = std::getenv("GCOV_PREFIX");
  const std::string dir = run ? run : "", cache = cache_dir() + "/";
  if (dir.compare(0, cache.size(), cache) == 0 && dir.find("/..") == std::string::npos && is_dir(dir)) remove_tree(dir);
}

std::vector<std::string> kernel_generated_sources() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return {};
  std::string dir(self, (size_t)n);
  dir = dir.substr(0, dir.rfind('/'));
  std::vector<std::string> units;
  for (const char* u : {"/kernel_source.cpp", "/kernel_rwsem.cpp"})
    if (is_file(dir + u)) units.push_back(dir + u);
  return units;
}

bool read_kernel_counters(const std::vector<GcdaFile>& gcda, std::string* gcov_json, std::string* why) {
  const char* run = std::getenv("GCOV_PREFIX");
  if (gcda.empty() || !run || !*run) {
    *why = "this checker counts no lines (not built for a patch or --coverage, or its compiler is not gcc)";
    return false;
  }
  for (const GcdaFile& f : gcda) {
    // The counters' file by its own name only, in the run's directory (the name comes from the
    // contained child: no path of its choosing).
    const std::string base = f.name.substr(f.name.rfind('/') == std::string::npos ? 0 : f.name.rfind('/') + 1);
    if (base.empty() || base == "." || base == "..") continue;
    std::ofstream out(std::string(run) + "/" + base, std::ios::binary);
    out << f.bytes;
  }
  bool ok = true;
  std::string json;
  for (const std::string& src : kernel_generated_sources()) {
    const std::string unit = src.substr(src.rfind('/') + 1, src.size() - src.rfind('/') - 5);  // "kernel_rwsem"
    if (!copy_file(src.substr(0, src.size() - 4) + ".gcno", std::string(run) + "/" + unit + ".gcno")) continue;
    const std::string log = std::string(run) + "/" + unit + ".json";
    if (run_logged({"gcov", "--json-format", "--stdout", "--branch-probabilities", unit + ".gcda"}, log, run) != 0) {
      ok = false;
      continue;
    }
    std::string out;
    read_file(log, &out);
    json += out + "\n";
  }
  // The directory stays for the next set of counters (a counterexample's replay); the checker
  // removes it at the end (discard_kernel_line_counts).
  if (!ok || json.find('{') == std::string::npos) {
    *why = "gcov could not read the checker's line counters";
    return false;
  }
  *gcov_json = json;
  return true;
}
