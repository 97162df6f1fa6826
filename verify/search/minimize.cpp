#include "verify/search/minimize.hpp"

#include <algorithm>
#include "verify/report/swimlane.hpp"

static std::string preemptions_text(int n) { return std::to_string(n) + (n == 1 ? " preemption" : " preemptions"); }

Minimized minimize_counterexample(const Scenario& s, const RunOptions& o, const RunResult& found, uint64_t budget) {
  Minimized m;
  m.result = found;
  m.original_preemptions = count_preemptions(found.events);
  // A trace found under bound:N has at most N preemptions as Relacy counts them.
  if (found.search.rfind("bound:", 0) == 0)
    m.original_preemptions = std::min(m.original_preemptions, std::stoi(found.search.substr(6)));
  m.preemptions = m.original_preemptions;
  bool complete = true;  // every bound below the current one was searched to its end
  int searched = 0;      // bounds 0 .. searched-1 were searched to their end
  double seconds = 0;
  std::string stopped;
  for (int k = 0; k < m.original_preemptions && m.iterations < budget; k++) {
    RunOptions b = o;
    b.search.kind = SearchSpec::Kind::bound;
    b.search.n = (unsigned)k;
    b.budget = budget - m.iterations;
    b.progress = false;
    RunResult r = run_scenario(s, b, true);
    m.iterations += r.iterations;
    seconds += r.seconds;
    if (r.result == "counterexample" && r.kind == found.kind && !r.events.empty()) {
      m.result = r;
      m.preemptions = k;
      m.shortest = complete;
      break;
    }
    if (r.result == "error") {  // e.g. a scenario with CPUs, which only the full search keeps
      complete = false;
      stopped = "not minimized: bound:" + std::to_string(k) + " cannot run it (" + r.kind + ")";
      break;
    }
    if (r.result == "incomplete") {
      complete = false;
      stopped = "the minimize budget ran out in bound:" + std::to_string(k);
      break;
    }
    // A failure of another kind ends that bound's search before it covered the rest.
    if (r.result != "verified") complete = false;
    if (complete) searched = k + 1;
  }
  if (m.preemptions == m.original_preemptions) m.shortest = searched == m.original_preemptions;
  m.result.iterations = found.iterations + m.iterations;
  m.result.seconds = found.seconds + seconds;
  m.result.stats["preemptions"] = m.preemptions;
  if (m.shortest)
    m.note = "fewest preemptions: " + preemptions_text(m.preemptions) +
             (m.preemptions ? " (every interleaving with fewer was explored: no " + found.kind + ")" : "");
  else
    m.note = "fewest preemptions found: " + preemptions_text(m.preemptions) + " (" +
             (stopped.empty() ? "the minimize budget ran out" : stopped) + "; not shown to be the fewest)";
  if (m.preemptions < m.original_preemptions)
    m.note += "; the first counterexample found had " + preemptions_text(m.original_preemptions);
  return m;
}
