// run_check_isolated: a check in a child process, so that a crash in one scenario or proof is
// that check's error and every other check still runs and is reported.
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include "verify/all.hpp"

using nlohmann::json;

#ifdef VMAVERIFY_COVERAGE_BUILD
extern "C" void __gcov_dump(void);  // libgcov: write the counters; _exit would skip it
#endif

std::string outcome_wire(const Outcome& o) {
  const RunResult& r = o.r;
  json events = json::array();
  for (const TraceEvent& e : r.events)
    events.push_back({e.step, e.thread, e.function, e.object, e.operation, e.value, e.order, e.source, e.failing});
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
      r.events.push_back({e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], e[8]});
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

void run_check_isolated(const Check& c, const OutcomeSink& sink) {
  int fds[2];
  std::fflush(nullptr);  // nothing buffered is written twice
  pid_t pid = pipe(fds) == 0 ? fork() : -1;
  if (pid == 0) {
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
  Outcome died = c.on_crash;
  died.as_expected = false;
  died.r.result = "error";
  died.r.kind = "crash";
  if (pid < 0) {
    died.r.message = std::string("cannot start its process: ") + std::strerror(errno);
    sink(died);
    return;
  }
  close(fds[1]);
  FILE* in = fdopen(fds[0], "r");
  bool done = false;
  std::string line;
  for (int ch; (ch = std::fgetc(in)) != EOF;) {
    if (ch != '\n') {
      line += (char)ch;
      continue;
    }
    Outcome o;
    if (line == "done") done = true;
    else if (outcome_from_wire(line, &o)) sink(o);
    line.clear();
  }
  std::fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  if (done && WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  died.r.message = how_it_died(status);
  sink(died);
}
