// The kernel group of `vmaverify all`, when a kernel tree is available (Debian's
// linux-source-6.12): every teardown scenario on the tree's own code, which must verify and
// agree with the hand model (same verdict, same batch states), and the rwsem scenarios below on
// the tree's rwsem.c (same verdict): `vmaverify kernel --agree SCENARIO...`.
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include "verify/checks/all.hpp"
#include "verify/kernel/kernel_build.hpp"
#include "verify/search/scenario.hpp"

namespace {

// The rwsem scenarios all runs on the kernel's rwsem.c, each with the hand model's run beside it
// (bench/README.md has the figures): those whose searches take seconds with optimistic spinning
// on, so that all stays within its few minutes. The three-task ones take many minutes each on
// the kernel's code: `vmaverify kernel` runs them.
const char* const kRwsemScenariosInAll[] = {"rwsem_two_writers", "rwsem_reader_writer", "rwsem_handoff",
                                            "rwsem_stale_wakeup"};
// The teardown under the faithful semaphore with three tasks: on the tree's rwsem.c (optimistic
// spinning on) its search takes many minutes; `vmaverify kernel rwsem_teardown_walker_mmap` runs it.
const std::string kTeardownNotInAll = "rwsem_teardown_walker_mmap";

Outcome kernel_outcome(const std::string& scenario) {
  Outcome o;
  o.r.scenario = scenario;
  o.r.variant = "kernel";
  o.expected = "verified, agreeing with the hand model";
  return o;
}

// One line of `kernel --json` back into an outcome.
bool parse_outcome(const std::string& line, Outcome* out) {
  try {
    nlohmann::json j = nlohmann::json::parse(line);
    Outcome o = kernel_outcome(j.at("scenario"));
    j.at("mutant").get_to(o.r.mutant), j.at("search").get_to(o.r.search), j.at("result").get_to(o.r.result);
    j.at("kind").get_to(o.r.kind), j.at("message").get_to(o.r.message), j.at("iterations").get_to(o.r.iterations);
    j.at("seconds").get_to(o.r.seconds), j.at("as_expected").get_to(o.as_expected), j.at("expected").get_to(o.expected);
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.value().is_number_integer() && it.key() != "iterations") o.r.stats[it.key()] = it.value().get<long>();
    *out = o;
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

// Run the checker on these scenarios, one outcome per line of its --json output.
void run_checker(const KernelBuild& b, const std::vector<std::string>& scenarios, const OutcomeSink& sink) {
  int fds[2];
  if (pipe(fds) != 0) return;
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    // One scenario at a time: vmaverify all runs its checks a core each, this group one of them.
    std::vector<std::string> args = {b.checker, "kernel", "--agree", "--json", "--quiet", "--jobs", "1"};
    args.insert(args.end(), scenarios.begin(), scenarios.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  FILE* in = fdopen(fds[0], "r");
  std::string line;
  for (int ch; (ch = std::fgetc(in)) != EOF;) {
    if (ch != '\n') {
      line += (char)ch;
      continue;
    }
    Outcome o;
    if (parse_outcome(line, &o)) sink(o);
    line.clear();
  }
  std::fclose(in);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  // Exit 1 is a counterexample or a disagreement, already reported line by line.
  if (pid < 0 || !WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1 && WEXITSTATUS(status) != 3)) {
    Outcome o = kernel_outcome(scenarios.size() == 1 ? scenarios[0] : "kernel");
    o.r.result = "error";
    o.r.kind = "crash";
    o.r.message = "the kernel checker " + b.checker + " ended with status " + std::to_string(WEXITSTATUS(status)) +
                  (WIFSIGNALED(status) ? std::string(" (signal ") + strsignal(WTERMSIG(status)) + ")" : "");
    sink(o);
  }
}

void run_kernel_checks(const OutcomeSink& sink) {
  KernelBuild b = build_kernel_checker("", {});
  if (!b.error.empty()) {
    Outcome o = kernel_outcome("kernel");
    o.r.result = "error";
    o.r.kind = "bad tree";
    o.r.message = b.error;
    sink(o);
    return;
  }
  // One checker process for all of them (it runs each scenario's search in turn).
  std::vector<std::string> scenarios;
  for (const Scenario& s : all_scenarios())
    if (s.figures && s.name != kTeardownNotInAll) scenarios.push_back(s.name);
  for (const char* s : kRwsemScenariosInAll) scenarios.push_back(s);
  run_checker(b, scenarios, sink);
}

std::vector<Check> kernel_checks(bool) {
  if (!default_kernel_tree_available()) return {};
  Outcome on_crash = kernel_outcome("kernel");
  return {{on_crash, &run_kernel_checks}};
}

CheckGroupRegistrar kernel_group({"kernel", &kernel_checks});

}  // namespace
