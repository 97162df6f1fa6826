#include "verify/search/shards.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include "verify/checks/all.hpp"
#include "verify/build_id.hpp"
#include "verify/model_hash.hpp"

// The slicing of shards (verify/search/explore.cpp, begin): a change to it changes which iterations a
// shard owns, so shards of two slicings do not add up to one search.
static const char* const kSlicing = "slices-v1";

std::string search_fingerprint(const RunResult& r) {
  unsigned long long h = 1469598103934665603ULL;  // FNV-1a over the fields, each ended by a 0xff
  for (const std::string& s : {std::string(VMAVERIFY_BUILD_ID), std::string(VMAVERIFY_MODEL_HASH), r.scenario,
                               r.mutant, r.variant, r.shard_search, std::to_string(r.budget),
                               r.shard.substr(r.shard.find('/') + 1), std::string(kSlicing)}) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  }
  char b[40];
  std::snprintf(b, sizeof b, "%s-%016llx", VMAVERIFY_BUILD_ID, h);
  return b;
}

bool parse_shard(const std::string& text, unsigned* index, unsigned* count, std::string* err) {
  const size_t slash = text.find('/');
  auto number = [](const std::string& d, unsigned* out) {
    if (d.empty() || d.size() > 9 || d.find_first_not_of("0123456789") != std::string::npos) return false;
    *out = (unsigned)std::stoul(d);
    return true;
  };
  unsigned i = 0, n = 0;
  if (slash == std::string::npos || !number(text.substr(0, slash), &i) || !number(text.substr(slash + 1), &n) ||
      n == 0 || n > kMaxShards || i >= n) {
    *err = "bad shard '" + text + "': expected I/N with 0 <= I < N <= " + std::to_string(kMaxShards);
    return false;
  }
  *index = i;
  *count = n;
  return true;
}

bool merge_shards(const std::vector<RunResult>& parts, RunResult* merged, std::string* err) {
  if (parts.empty()) {
    *err = "no shard results";
    return false;
  }
  unsigned n = 0;
  std::vector<const RunResult*> by_index;
  for (const RunResult& p : parts) {
    unsigned i = 0, count = 0;
    std::string why;
    if (!parse_shard(p.shard, &i, &count, &why)) {
      *err = "a result of " + p.scenario + " is not one shard of a search: " + why;
      return false;
    }
    if (n == 0) {
      n = count;
      by_index.assign(n, nullptr);
    }
    const RunResult& f = parts.front();
    if (p.fingerprint != search_fingerprint(p)) {
      *err = "shard " + p.shard + " of " + p.scenario + ": its fingerprint is not that of its search (" + p.shard_search +
             ", budget " + std::to_string(p.budget) + ") under this vmaverify: a result of another build, or edited";
      return false;
    }
    // The search each shard ran (a counterexample's may since have been minimised under a bounded one).
    if (count != n || p.fingerprint != f.fingerprint) {
      *err = "shard " + p.shard + " is of another search (" + p.scenario + ", mutant " + p.mutant + ", " + p.variant +
             ", " + p.shard_search + ", budget " + std::to_string(p.budget) + ") than shard " + f.shard + " (" +
             f.scenario + ", mutant " + f.mutant + ", " + f.variant + ", " + f.shard_search + ", budget " +
             std::to_string(f.budget) + ")";
      return false;
    }
    if (by_index[i]) {
      *err = "shard " + p.shard + " is given twice";
      return false;
    }
    by_index[i] = &p;
  }
  std::string missing;
  for (unsigned i = 0; i < n; i++)
    if (!by_index[i]) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(n);
  if (!missing.empty()) {
    *err = "shards missing: " + missing;
    return false;
  }
  // Shards that searched without twins (a task yielded in them) and shards that kept them
  // explored two different trees, whose slices do not add up to one search.
  static const char* const kSymmetryOff = "symmetry off: a task yields";
  unsigned symmetry_off = 0;
  for (const RunResult* p : by_index) symmetry_off += p->stats.count(kSymmetryOff) != 0;
  RunResult m;
  const RunResult* verdict = nullptr;  // the shard whose result decides, in order of precedence
  for (const char* result : {"counterexample", "error", "incomplete"})
    for (unsigned i = 0; i < n && !verdict; i++)
      if (by_index[i]->result == result) verdict = by_index[i];
  if (verdict) {
    m = *verdict;
    m.message = "shard " + verdict->shard + ": " + verdict->message;
  } else {
    m = *by_index[0];
    m.result = "verified";
  }
  if (!verdict && symmetry_off != 0 && symmetry_off != n) {
    m.result = "incomplete";
    m.message = std::to_string(symmetry_off) + " of " + std::to_string(n) +
                " shards searched without twins (a task yielded in them), the others with: their slices are of two "
                "different search trees, so they do not cover one search; run the scenario in one process";
  }
  m.shard.clear();
  m.iterations = 0;
  m.seconds = 0;
  for (const RunResult* p : by_index) {
    if (m.iterations > UINT64_MAX - p->iterations) {
      *err = "the shards' iterations add up to more than 2^64 - 1: not the figures of one search";
      return false;
    }
    m.iterations += p->iterations;
    m.seconds = std::max(m.seconds, p->seconds);
    for (const auto& kv : p->stats)  // the reduction's counts add up; a scenario's figures are one search's
      m.stats[kv.first] = kv.first.rfind("reduction: ", 0) == 0 ? m.stats[kv.first] + kv.second
                                                                 : std::max(m.stats[kv.first], kv.second);
  }
  *merged = m;
  return true;
}

namespace {

// One shard's child process: its pipe, and what it wrote so far.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string out;
};

RunResult shard_error(const Scenario& s, const RunOptions& o, unsigned i, unsigned n, const std::string& why) {
  RunResult r;
  r.scenario = s.name;
  r.mutant = o.mutant;
  r.search = o.search.str();
  r.variant = o.unbatched ? "unbatched" : "batched";
  r.result = "error";
  r.kind = "crash";
  r.shard = std::to_string(i) + "/" + std::to_string(n);
  r.shard_search = o.search.str() + (o.reduce && !o.search.reduce ? "+reduce" : "");
  r.budget = o.budget;
  r.fingerprint = search_fingerprint(r);
  r.message = why;
  return r;
}

}  // namespace

namespace {

// The shards' processes, for the signal handler: a SIGINT or SIGTERM to `run --jobs` ends them
// too (they are not left exploring, orphaned), then the parent, by the same signal.
volatile sig_atomic_t g_child_count = 0;
pid_t g_children[kMaxShards];

void end_shards(int sig) {
  for (sig_atomic_t i = 0; i < g_child_count; i++)
    if (g_children[i] > 0) kill(g_children[i], SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

RunResult run_jobs(const Scenario& s, const RunOptions& o, unsigned jobs) {
  std::vector<Child> children(jobs);
  std::fflush(nullptr);  // nothing buffered is written twice
  g_child_count = 0;
  struct sigaction forward = {}, old_int, old_term, old_hup;
  forward.sa_handler = end_shards;
  sigaction(SIGINT, &forward, &old_int);
  sigaction(SIGTERM, &forward, &old_term);
  sigaction(SIGHUP, &forward, &old_hup);
  int start_error = 0;  // why a shard's process could not start
  for (unsigned i = 0; i < jobs; i++) {
    int fds[2];
    if (pipe(fds) != 0) {
      start_error = errno;
      break;
    }
    const pid_t pid = fork();
    if (pid < 0) start_error = errno;
    if (pid == 0) {
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      signal(SIGHUP, SIG_DFL);
      close(fds[0]);
      for (unsigned j = 0; j < i; j++) close(children[j].fd);
      RunOptions mine = o;
      mine.shard_index = i;
      mine.shard_count = jobs;
      mine.sharded = true;
      mine.progress = o.progress && i == 0;  // one progress line, not N interleaved
      Outcome out;
      out.r = run_scenario(s, mine, true);
      const std::string line = outcome_wire(out) + "\n";
      for (size_t done = 0; done < line.size();) {
        const ssize_t w = write(fds[1], line.data() + done, line.size() - done);
        if (w <= 0 && errno != EINTR) _exit(1);
        if (w > 0) done += (size_t)w;
      }
      _exit(0);
    }
    close(fds[1]);
    if (pid < 0) {
      close(fds[0]);
      break;
    }
    children[i].pid = pid;
    children[i].fd = fds[0];
    g_children[i] = pid;
    g_child_count = (sig_atomic_t)(i + 1);
  }
  // Read every pipe as it fills: a large counterexample must not block its child.
  for (;;) {
    std::vector<pollfd> open;
    for (const Child& c : children)
      if (c.fd >= 0) open.push_back({c.fd, POLLIN, 0});
    if (open.empty()) break;
    if (poll(open.data(), open.size(), -1) < 0 && errno != EINTR) break;
    for (const pollfd& p : open) {
      if (!p.revents) continue;
      Child& c = *std::find_if(children.begin(), children.end(), [&](const Child& x) { return x.fd == p.fd; });
      char buf[65536];
      const ssize_t got = read(c.fd, buf, sizeof buf);
      if (got > 0) c.out.append(buf, (size_t)got);
      else if (got == 0 || errno != EINTR) {
        close(c.fd);
        c.fd = -1;
      }
    }
  }
  std::vector<RunResult> parts;
  for (unsigned i = 0; i < jobs; i++) {
    Child& c = children[i];
    if (c.pid < 0) {
      parts.push_back(shard_error(s, o, i, jobs,
                                  std::string("cannot start its process: ") + std::strerror(start_error ? start_error : EAGAIN) +
                                      " (fewer --jobs, or raise the process or file limit)"));
      continue;
    }
    int status = 0;
    waitpid(c.pid, &status, 0);
    Outcome got;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && outcome_from_wire(c.out.substr(0, c.out.find('\n')), &got)) {
      got.r.shard = std::to_string(i) + "/" + std::to_string(jobs);
      parts.push_back(got.r);
    } else {
      parts.push_back(shard_error(s, o, i, jobs,
                                  WIFSIGNALED(status) ? "shard's process crashed: signal " + std::to_string(WTERMSIG(status))
                                                      : "shard's process ended before reporting"));
    }
  }
  g_child_count = 0;
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  RunResult merged;
  std::string err;
  if (!merge_shards(parts, &merged, &err)) {  // the parts are the shards 0..jobs-1 of this search
    merged = shard_error(s, o, 0, jobs, "the shards' results do not merge: " + err);
    merged.shard.clear();
  }
  return merged;
}
