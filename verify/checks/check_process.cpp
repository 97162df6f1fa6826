// run_check_isolated: a check in a child process, so that a crash in one scenario or proof is
// that check's error and every other check still runs and is reported.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "verify/checks/all.hpp"

using nlohmann::json;

#ifdef VMAVERIFY_COVERAGE_BUILD
extern "C" void __gcov_dump(void);  // libgcov: write the counters; _exit would skip it
#endif

std::string outcome_wire(const Outcome& o) {
  const RunResult& r = o.r;
  json events = json::array();
  for (const TraceEvent& e : r.events)
    events.push_back({e.step, e.thread, e.function, e.object, e.operation, e.value, e.order, e.source, e.failing, e.chain});
  json j = {{"scenario", r.scenario}, {"mutant", r.mutant}, {"search", r.search}, {"variant", r.variant},
            {"result", r.result}, {"kind", r.kind}, {"message", r.message}, {"iterations", r.iterations},
            {"seconds", r.seconds}, {"history", r.history}, {"events", events}, {"failing_step", r.failing_step},
            {"state", r.state}, {"stats", r.stats}, {"violated_spec", r.violated_spec}, {"shard", r.shard},
            {"shard_search", r.shard_search}, {"budget", r.budget}, {"fingerprint", r.fingerprint},
            {"as_expected", o.as_expected}, {"expected", o.expected}, {"group", o.group}, {"trace", o.trace}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool outcome_from_wire(const std::string& line, Outcome* out) {
  try {
    json j = json::parse(line);
    Outcome o;
    RunResult& r = o.r;
    j.at("scenario").get_to(r.scenario), j.at("mutant").get_to(r.mutant), j.at("search").get_to(r.search);
    j.at("variant").get_to(r.variant), j.at("result").get_to(r.result), j.at("kind").get_to(r.kind);
    j.at("message").get_to(r.message), j.at("iterations").get_to(r.iterations), j.at("seconds").get_to(r.seconds);
    j.at("history").get_to(r.history), j.at("failing_step").get_to(r.failing_step), j.at("state").get_to(r.state);
    j.at("stats").get_to(r.stats), j.at("violated_spec").get_to(r.violated_spec);
    j.at("shard").get_to(r.shard), j.at("shard_search").get_to(r.shard_search), j.at("budget").get_to(r.budget);
    j.at("fingerprint").get_to(r.fingerprint);
    for (const json& e : j.at("events"))
      r.events.push_back({e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], e[8], e[9]});
    j.at("as_expected").get_to(o.as_expected), j.at("expected").get_to(o.expected), j.at("group").get_to(o.group), j.at("trace").get_to(o.trace);
    *out = o;
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

static std::string how_it_died(int status) {
  if (WIFSIGNALED(status))
    return "crashed: signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "its process exited with status " + std::to_string(WEXITSTATUS(status)) + " before reporting";
  return "its process ended abnormally";
}

namespace {

// One check's child process: its pipe, what it has written so far, and its outcomes.
struct Child {
  std::chrono::steady_clock::time_point started;
  double seconds = 0;  // from start to its last outcome
  pid_t pid = -1;
  int fd = -1;
  std::string text;
  bool finished = false;
  std::vector<Outcome> outcomes;
};

// The check's error when its process could not start or died before saying it was done.
Outcome crashed(const Check& c, const std::string& why) {
  Outcome died = c.on_crash;
  died.as_expected = false;
  died.r.result = "error";
  died.r.kind = "crash";
  died.r.message = why;
  return died;
}

// Fork the check's process; its outcomes come back one line each on the pipe, then "done".
void start(const Check& c, Child* ch) {
  int fds[2];
  std::fflush(nullptr);  // nothing buffered is written twice
  ch->started = std::chrono::steady_clock::now();
  ch->pid = pipe(fds) == 0 ? fork() : -1;
  if (ch->pid == 0) {
    close(fds[0]);
    FILE* out = fdopen(fds[1], "w");
    c.run([&](const Outcome& o) {
      std::fprintf(out, "%s\n", outcome_wire(o).c_str());
      std::fflush(out);
    });
    std::fprintf(out, "done\n");
    std::fclose(out);
    std::fflush(nullptr);
#ifdef VMAVERIFY_COVERAGE_BUILD
    __gcov_dump();
#endif
    _exit(0);
  }
  if (ch->pid < 0) {
    ch->outcomes.push_back(crashed(c, std::string("cannot start its process: ") + std::strerror(errno)));
    ch->finished = true;
    return;
  }
  close(fds[1]);
  ch->fd = fds[0];
}

// The child closed its pipe: reap it and read its outcomes; a child that did not say "done"
// and exit 0 died, which is the check's error.
void finish(const Check& c, Child* ch) {
  close(ch->fd);
  ch->fd = -1;
  int status = 0;
  waitpid(ch->pid, &status, 0);
  bool done = false;
  size_t from = 0;
  for (size_t nl; (nl = ch->text.find('\n', from)) != std::string::npos; from = nl + 1) {
    const std::string line = ch->text.substr(from, nl - from);
    Outcome o;
    if (line == "done") done = true;
    else if (outcome_from_wire(line, &o)) ch->outcomes.push_back(o);
  }
  if (!(done && WIFEXITED(status) && WEXITSTATUS(status) == 0)) ch->outcomes.push_back(crashed(c, how_it_died(status)));
  ch->finished = true;
  ch->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - ch->started).count();
}

}  // namespace

void run_checks_isolated(const std::vector<Check>& checks, int jobs,
                         const std::function<void(size_t, const Outcome&)>& sink,
                         const std::function<void(size_t, double)>& finished) {
  std::vector<Child> children(checks.size());
  size_t next = 0, reported = 0;
  int running = 0;
  jobs = std::max(1, jobs);
  while (reported < checks.size()) {
    while (running < jobs && next < checks.size()) {
      start(checks[next], &children[next]);
      if (!children[next].finished) running++;
      next++;
    }
    // Hand over, in check order, what the finished checks said.
    while (reported < next && children[reported].finished) {
      for (const Outcome& o : children[reported].outcomes) sink(reported, o);
      if (finished) finished(reported, children[reported].seconds);
      children[reported] = Child{};
      reported++;
    }
    if (running == 0) continue;
    std::vector<pollfd> fds;
    std::vector<size_t> who;
    for (size_t i = reported; i < next; i++)
      if (children[i].fd >= 0) {
        fds.push_back({children[i].fd, POLLIN, 0});
        who.push_back(i);
      }
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      for (size_t k = 0; k < who.size(); k++) fds[k].revents = POLLIN;  // read each: blocks until it says something
    }
    for (size_t k = 0; k < who.size(); k++) {
      if (!fds[k].revents) continue;
      Child& ch = children[who[k]];
      char buf[4096];
      const ssize_t n = read(ch.fd, buf, sizeof buf);
      if (n > 0) {
        ch.text.append(buf, (size_t)n);
      } else if (n == 0 || errno != EINTR) {
        finish(checks[who[k]], &ch);
        running--;
      }
    }
  }
}

void run_check_isolated(const Check& c, const OutcomeSink& sink) {
  run_checks_isolated({c}, 1, [&](size_t, const Outcome& o) { sink(o); });
}
