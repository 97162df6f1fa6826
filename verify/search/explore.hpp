// The exploration driver: runs one scenario (a Relacy test suite) under Relacy's own
// schedulers and turns what Relacy reports into a RunResult.
#pragma once
#include <chrono>
#include "model/check.hpp"
#include "model/preempt.hpp"
#include "model/rl_env.hpp"
#include "verify/search/call_chains.hpp"
#include "verify/search/relacy_state.hpp"
#include "verify/search/shard_scheduler.hpp"
#include "verify/search/scenario.hpp"

namespace exploration {

// Start of every explored iteration (called by scenario_base::before): counts iterations,
// reports progress, and stops the search through Relacy's own rl_until at the budget.
void iteration_begin();

// A figure the scenario reports (e.g. write-lock acquisitions); fixed storage, because
// anything allocated during an iteration lands on Relacy's heap.
void stat(const char* key, long value);

void begin(const Scenario& s, const RunOptions& o);
// The result for a saved state that this scenario and search cannot have produced: an error.
RunResult invalid_state(const Scenario& s, const RunOptions& o, const std::string& why);
// The result of a search in which a task with a twin blocked or ended before its second step.
RunResult twin_misuse_error(const Scenario& s, const RunOptions& o);
// The reduced search's figures, as stats prefixed "reduction: " (merged shards add them up):
// its sleep-set blocked iterations and the backtrack points each kind of race added.
void add_reduction_figures(RunResult* res);
// The result of a search whose runs did not repeat their recorded choices (g_nondeterminism).
RunResult nondeterminism_error(const Scenario& s, const RunOptions& o);
// Iterations begun since begin() (the budget's count).
uint64_t iterations_begun();
RunResult finish(const Scenario& s, const RunOptions& o, uint64_t started, rl::test_result_e r,
                 const std::string& output, const std::string& state, double seconds);

// Work-stealing (verify/search/work_stealing.hpp), the driver's side. Starts the pool for a
// reduced search asked to run in `jobs` processes; false (the search runs in one process) when
// it cannot, with *err saying why.
bool start_work_stealing(unsigned jobs, history_reader* reader, std::string* err);
// A worker's result, with its explored batch states, whether a task yielded under twins and
// whether the set-up thread mattered after a split (g_setup_after_split), as the blob it hands
// to the first process.
std::string worker_blob(const RunResult& r, bool twin_yield, bool setup_after_split);
// Whether a worker's blob says a task yielded under twins; that the set-up thread mattered.
bool worker_twin_yield(const std::string& blob);
bool worker_setup_after_split(const std::string& blob);
// The first process's result and its workers' as one search's: the verdict by precedence
// (counterexample, error, incomplete, verified; this process's first), iterations and the
// reduction's counts added up, each other figure the largest; the workers' batch states join
// this process's. `lost` (non-empty) says a worker ended without reporting: an error.
RunResult merge_workers(RunResult own, const std::vector<std::string>& blobs, const std::string& lost);

// Whether Suite overrides rl::test_suite's invariant(), which Relacy checks at every scheduling
// point: a check on intermediate states that no trace-equivalence reduction preserves (two runs
// that differ only in the order of independent steps pass through different states).
template <class T>
struct member_owner;
template <class C, class R>
struct member_owner<R C::*> {
  typedef C type;
};
template <class C>
struct is_relacy_suite : std::false_type {};
template <class D, rl::thread_id_t N, rl::test_result_e R>
struct is_relacy_suite<rl::test_suite<D, N, R>> : std::true_type {};
template <class Suite>
constexpr bool checks_intermediate_states() {
  return !is_relacy_suite<typename member_owner<decltype(&Suite::invariant)>::type>::value;
}

template <class Suite>
rl::test_result_e run_with(rl::test_params& p, std::string* state) {
  constexpr rl::thread_id_t n = Suite::params::thread_count;
  // The reduction is never applied where it is not sound (explore() says so in the result).
  if (checks_intermediate_states<Suite>()) g_reduce = false;
  rl::ostringstream st;
  rl::test_result_e r;
  switch (p.search_type) {
    case rl::sched_full:
      r = rl::run_test<Suite, shard_scheduler<n>>(p, st, false);  // a saved state too (set_state_impl)
      break;
    case rl::sched_bound: r = rl::run_test<Suite, rl::context_bound_scheduler<n>>(p, st, false); break;
    default: r = rl::run_test<Suite, rl::random_scheduler<n>>(p, st, false); break;
  }
  *state = std::string(st.str().c_str());
  return r;
}

// The scenario's twins for the searches of one explore(), its replay included; none outside it
// (the tests' own Relacy tests).
template <class Suite>
struct twins_scope {
  twins_scope() {
    for (rl::thread_id_t i = 0; i < Suite::params::thread_count; i++) g_twin_of[i] = g_symmetry ? Suite::twin_of(i) : -1;
    g_twin_misuse = false;
  }
  ~twins_scope() { g_twin_of.fill(-1); }
};

// The threads that have a twin; -1 if a twin_of names no earlier thread.
template <class Suite>
constexpr int twin_count() {
  int n = 0;
  for (int i = 0; i < (int)Suite::params::thread_count; i++) {
    if (Suite::twin_of(i) >= i) return -1;
    n += Suite::twin_of(i) >= 0;
  }
  return n;
}

// The scenario's CPUs and priorities (scenario_base::cpu_of, rt_task; model/preempt.hpp) for the
// searches of one explore(); none outside it.
template <class Suite>
constexpr bool places_tasks_on_cpus() {
  for (rl::thread_id_t i = 0; i < Suite::params::thread_count; i++)
    if (Suite::cpu_of(i) >= 0) return true;
  return false;
}
template <class Suite>
struct cpus_scope {
  cpus_scope() {
    static_assert(!places_tasks_on_cpus<Suite>() || twin_count<Suite>() == 0, "a scenario with CPUs declares no twins");
    g_cpus.active = places_tasks_on_cpus<Suite>();
    for (rl::thread_id_t i = 0; i < Suite::params::thread_count; i++) {
      g_cpus.cpu_of[i] = Suite::cpu_of(i);
      g_cpus.rt[i] = Suite::rt_task(i);
    }
  }
  ~cpus_scope() { g_cpus.active = false; }
};
// A scenario with CPUs under a search other than full: only our full search keeps a task off a
// CPU another task holds, so any other would explore runs no kernel has and miss livelocks.
RunResult cpus_need_full_search(const Scenario& s, const RunOptions& o);

// What one process's search found, as a result: a failing iteration is replayed for its trace.
template <class Suite>
RunResult conclude(const Scenario& s, const RunOptions& o, const rl::test_params& p, rl::test_result_e r,
                   const std::string& state, const std::string& output, double seconds, bool reduced) {
  rl::ostringstream out;
  out << output.c_str();
  const uint64_t started = iterations_begun(), foreign = g_foreign_iterations;
  if (r != rl::test_result_success && r != rl::test_result_until_condition_hit && (!p.collect_history || reduced)) {
    // Re-run exactly the failing iteration with history on: Relacy's own replay of a search state.
    rl::test_params q = p;
    q.output_stream = &out;
    q.output_history = false;
    q.initial_state = state.c_str();
    q.collect_history = true;
    RunOptions replay = o;
    replay.budget = 1;
    replay.initial_state = state;
    replay.progress = false;
    replay.shard_index = 0, replay.shard_count = 1;  // the state is a whole path from the root
    begin(s, replay);
    std::string ignored;
    call_chains_begin();
    run_with<Suite>(q, &ignored);
    call_chains_end();
    g_foreign_iterations = foreign;  // begin() reset it for the replay
  }
  RunResult res = finish(s, o, started, r, std::string(out.str().c_str()), state, seconds);
  if (reduced) add_reduction_figures(&res);
  return res;
}

template <class Suite>
RunResult explore(const Scenario& s, const RunOptions& o) {
  std::string why;
  if (!o.initial_state.empty() && !relacy_state_valid(o.initial_state, o.search, Suite::params::thread_count, &why))
    return invalid_state(s, o, why);
  if (places_tasks_on_cpus<Suite>() && o.search.kind != SearchSpec::Kind::full) return cpus_need_full_search(s, o);
  begin(s, o);
  g_nondeterminism[0] = 0;
  const twins_scope<Suite> twins;
  const cpus_scope<Suite> cpus;
  rl::ostringstream out, progress;
  rl::test_params p;
  p.output_stream = &out;
  p.progress_stream = &progress;
  p.search_type = o.search.kind == SearchSpec::Kind::full    ? rl::sched_full
                  : o.search.kind == SearchSpec::Kind::bound ? rl::sched_bound
                                                             : rl::sched_random;
  p.context_bound = o.search.n;
  // Relacy numbers iterations from 1 (context.hpp, start_iteration_): its random scheduler runs
  // 1..iteration_count, and its progress report divides by iteration_count (never 0 here).
  p.iteration_count = o.search.kind == SearchSpec::Kind::random ? o.search.n : 0;
  p.initial_state = o.initial_state.c_str();
  p.collect_history = !o.initial_state.empty();
  // The reduction reads what each step touched from Relacy's record of the run's events; what
  // Relacy prints of a failing iteration is dropped: the replay below prints it.
  const bool asked = (o.reduce || o.search.reduce) && o.search.kind == SearchSpec::Kind::full && o.initial_state.empty();
  // With tasks on CPUs, each step reads and writes its CPU's state as pseudo-objects
  // (shard_scheduler.hpp, add_cpu_footprint).
  const bool reduced = asked && !checks_intermediate_states<Suite>();
  history_reader reader;
  reader.events.check_fields = g_check_event_fields;
  std::ostream dropped(nullptr);
  g_reduce = reduced;
  g_history_reader = reduced ? &reader : nullptr;
  g_trace_wanted = !reduced;
  if (reduced) {
    p.output_stream = &dropped;
    p.collect_history = true;
    g_failure_state.clear();
  }
  auto t0 = std::chrono::steady_clock::now();
  std::string state;
  // A reduced search asked to use several processes shares its tree by work-stealing; where the
  // pool cannot be set up, it runs in one process and says so.
  std::string no_pool;
  const bool pool = reduced && o.steal_jobs > 1 && o.initial_state.empty() && !places_tasks_on_cpus<Suite>() &&
                    start_work_stealing(o.steal_jobs, &reader, &no_pool);
  // A run from a saved state is the one a trace is made of: its call chains are recorded.
  if (!o.initial_state.empty()) call_chains_begin();
  rl::test_result_e r = run_with<Suite>(p, &state);
  if (!o.initial_state.empty()) call_chains_end();
  if (reduced) state = std::string(g_failure_state.c_str());
  g_reduce = false;
  g_history_reader = nullptr;
  g_trace_wanted = true;
  g_events_from_text = reader.events.formatted;
  g_unnamed_heap_objects = reader.unnamed_objects;
  g_event_fields_unlike_text = reader.events.fields_unlike_text;
  const bool passed = r == rl::test_result_success || r == rl::test_result_until_condition_hit;
  if (!passed || g_twin_misuse || g_nondeterminism[0]) work_stealing::stop_all();
  // The first process of a pool waits for its workers (each ends as this one does, below, then
  // hands its result over instead of returning it).
  const bool worker = pool && work_stealing::is_worker(), first = pool && !worker;
  std::vector<std::string> blobs;
  std::string lost;
  if (first) work_stealing::end(&blobs, &lost);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bool twin_yield = g_twin_yield, setup_after_split = g_setup_after_split;
  g_twin_yield = g_setup_after_split = false;
  for (const std::string& b : blobs) {
    twin_yield = twin_yield || worker_twin_yield(b);
    setup_after_split = setup_after_split || worker_setup_after_split(b);
  }
  RunResult res = g_twin_misuse ? twin_misuse_error(s, o)
                  : g_nondeterminism[0] ? nondeterminism_error(s, o)
                                        : conclude<Suite>(s, o, p, r, state, std::string(out.str().c_str()), seconds, reduced);
  if (worker) work_stealing::finish_worker(worker_blob(res, twin_yield, setup_after_split));
  if (first) res = merge_workers(std::move(res), blobs, lost);
  if (!no_pool.empty()) res.stats["work-stealing off: " + no_pool] = 1;
  // Said in the figures: the search that ran was the plain one.
  if (asked && !reduced) res.stats["reduction off: invariant() checked at every step"] = 1;
  // A task yielded under twins (shard_scheduler.hpp, g_twin_yield): a failure found stands (it is
  // a run of the program); a pass is void, and the scenario is searched again without twins. (A
  // replayed run is one run of the search that saved it, twins and all.)
  // The set-up thread mattered after the search split (g_setup_after_split): likewise, the
  // search runs again in one process.
  if (setup_after_split && (res.result == "verified" || res.result == "incomplete") && !g_twin_misuse &&
      !g_nondeterminism[0] && res.kind != "worker lost") {
    RunOptions one = o;
    one.steal_jobs = 1;
    RunResult again = explore<Suite>(s, one);
    again.stats["work-stealing off: the set-up task's stale read mattered after a split"] = 1;
    return again;
  }
  if (twin_yield && o.initial_state.empty() && (res.result == "verified" || res.result == "incomplete") &&
      !g_twin_misuse && !g_nondeterminism[0] && res.kind != "worker lost") {
    const bool symmetry = g_symmetry;
    g_symmetry = false;
    RunResult again = explore<Suite>(s, o);
    g_symmetry = symmetry;
    again.stats["symmetry off: a task yields"] = 1;
    return again;
  }
  return res;
}


}  // namespace exploration

// One scenario file ends with this line.
#define VMAVERIFY_SCENARIO(Suite, name, description, search)                                           \
  static_assert(exploration::twin_count<Suite>() >= 0, #Suite ": twin_of(i) must be an earlier thread or -1"); \
  static ScenarioRegistrar registrar_##Suite(                \
      {name, description, search, &exploration::explore<Suite>, nullptr, false, exploration::twin_count<Suite>()})
