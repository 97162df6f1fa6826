#include <algorithm>
#include "verify/search/explore.hpp"

#include "model/batch_states.hpp"
#include "model/mm.hpp"
#include "model/mutants.hpp"
#include "verify/checks/all.hpp"
#include "verify/search/shards.hpp"
#include "verify/search/work_stealing.hpp"
#include "verify/report/trace.hpp"

namespace exploration {

namespace {

struct Stat {
  const char* key;
  long value;
};

struct State {
  const Scenario* scenario = nullptr;
  uint64_t budget = 0, started = 0;
  bool progress = false;
  std::chrono::steady_clock::time_point t0, last_report;
  Stat stats[16];
  int nstats = 0;
  bool pooled = false;  // the budget counts the iterations of every process of a work-stealing pool
} g;

// Relacy's result, as a failure kind a kernel engineer reads.
std::string kind_of(rl::test_result_e r) {
  switch (r) {
    case rl::test_result_data_race: return "data race";
    case rl::test_result_deadlock: return "deadlock";
    case rl::test_result_livelock: return "livelock";
    case rl::test_result_access_to_freed_memory: return "use-after-free";
    case rl::test_result_double_free: return "double free";
    case rl::test_result_memory_leak: return "memory leak";
    case rl::test_result_resource_leak: return "resource leak";
    case rl::test_result_unitialized_access: return "uninitialized access";
    case rl::test_result_user_invariant_failed: return "invariant";
    case rl::test_result_user_assert_failed: return "assertion";
    default: {
      std::string s = rl::test_result_str(r);
      std::transform(s.begin(), s.end(), s.begin(), ::tolower);
      return s;
    }
  }
}

// The tasks a deadlock left blocked: each thread's last event, when it is a blocking one.
std::vector<const TraceEvent*> blocked_tasks(const std::vector<TraceEvent>& ev) {
  std::map<int, const TraceEvent*> last;
  for (const TraceEvent& e : ev)
    if (!e.failing && e.thread != kEndOfRun) last[e.thread] = &e;
  std::vector<const TraceEvent*> blocked;
  for (const auto& t : last)
    if (t.second->operation.find("blocking") != std::string::npos || t.second->operation.find("wait") != std::string::npos)
      blocked.push_back(t.second);
  return blocked;
}

// Where event i of a thread happened, in model functions: a scenario thread's own accesses
// (Relacy names them "thread") are named by the model function that thread ran last.
std::string where(const std::vector<TraceEvent>& ev, size_t i) {
  if (ev[i].function != "thread") return ev[i].function;
  for (size_t j = i; j-- > 0;)
    if (ev[j].thread == ev[i].thread && ev[j].function != "thread" && !ev[j].function.empty())
      return "the scenario's code after " + ev[j].function;
  return "the scenario's code";
}

// The kernel function a blocked task sleeps in: the last function of its own before the
// blocking one (schedule, a lock) that is not a step of going to sleep.
std::string sleeping_in(const std::vector<TraceEvent>& ev, const TraceEvent* blocked) {
  static const char* const kSleepSteps[] = {"thread", "set_current_state", "set_current_state_uninterruptible",
                                            "set_current_state_killable", "raw_spin_lock_irq", "raw_spin_unlock_irq",
                                            "schedule", "schedule_preempt_disabled"};
  for (const TraceEvent* e = blocked; e-- != ev.data();) {
    if (e->thread != blocked->thread || e->function.empty() || e->function == blocked->function) continue;
    if (std::find(std::begin(kSleepSteps), std::end(kSleepSteps), e->function) != std::end(kSleepSteps)) continue;
    return e->function;
  }
  return "";
}

// The tasks a deadlock left blocked, each as "T0<verb> schedule (from rwsem_down_write_slowpath)"
// joined by sep, with "(lost wake-up)" after them when one sleeps in schedule() (a wake-up nobody
// is left to send); empty when none is. *first_source: where the first of them blocks.
std::string blocked_text(const std::vector<TraceEvent>& ev, const char* verb, const char* sep,
                         std::string* first_source = nullptr) {
  std::string s;
  bool asleep = false;
  for (const TraceEvent* b : blocked_tasks(ev)) {
    const std::string in = sleeping_in(ev, b);
    s += (s.empty() ? "" : sep) + ("T" + std::to_string(b->thread)) + verb + b->function +
         (in.empty() ? "" : " (from " + in + ")");
    asleep = asleep || b->function.rfind("schedule", 0) == 0;
    if (first_source && first_source->empty()) *first_source = b->source;
  }
  return s.empty() || !asleep ? s : s + " (lost wake-up)";
}

// One line saying what went wrong, in the model's terms, where Relacy's own text is generic.
std::string summarize(const RunResult& r) {
  const auto& ev = r.events;
  if (r.kind == "deadlock") {
    const std::string s = blocked_text(ev, " blocked in ", "; ");
    return s.empty() ? r.message : "no thread can run: " + s;
  }
  if (r.kind == "data race" && ev.size() >= 2) {
    const size_t at = ev.size() - 2;
    const TraceEvent& racy = ev[at];
    for (size_t i = at; i-- > 0;)
      if (ev[i].object == racy.object && ev[i].thread != racy.thread)
        return "data race on " + racy.object + ": T" + std::to_string(racy.thread) + " " + racy.operation + " in " +
               where(ev, at) + " is unordered with T" + std::to_string(ev[i].thread) + " " + ev[i].operation +
               " in " + where(ev, i);
    return "data race on " + racy.object + " (" + racy.operation + " in " + where(ev, at) + ")";
  }
  return r.message;
}

// A deadlock is found by Relacy once no thread can run, in none of them: its row names the
// blocked tasks, where they block and in which kernel function; a task asleep in schedule()
// waits for a wake-up that no task is left to send (a lost wake-up).
void attribute_deadlock(RunResult* r) {
  std::string at;
  const std::string who = blocked_text(r->events, " in ", ", ", &at);
  TraceEvent& f = r->events.back();
  f.thread = kEndOfRun;
  f.function.clear();
  f.chain.clear();
  f.operation = "deadlock: " + (who.empty() ? std::string("no thread can run") : "blocked forever: " + who);
  f.source = at;
}

}  // namespace

namespace {
// Whether Relacy allocates for itself (its history, its bookkeeping): its context then hands out
// plain malloc'ed memory. The count is protected in rl::context: read from a derived class.
struct relacy_alloc_state : rl::context {
  static bool own(rl::context& c) { return c.*(&relacy_alloc_state::disable_alloc_) != 0; }
};
}  // namespace

void* relacy_or_malloc(size_t size) {
  if (!rl::is_ctx()) return (::malloc)(size);
  rl::context& c = rl::ctx();
  if (relacy_alloc_state::own(c)) return c.alloc(size);
  void* const p = c.alloc(size);
  // Logged as Relacy's new macro logs what it allocates (rl::new_proxy), so that the reduction
  // names the objects in the block by the block (history_reader); the size it leaves for the
  // macro is taken, so that the macro, if this call is its, logs nothing more.
  c.prev_alloc_size();
  const rl::debug_info info = RL_INFO;
  RL_HIST(rl::memory_alloc_event){p, size, false} RL_HIST_END();
  return p;
}

void iteration_begin() {
  // The set-up (constructors, before()) is no thread's step: the first step starts here.
  if (g_history_reader) g_history_reader->skip();
  g.started++;
  const uint64_t begun = g.pooled ? work_stealing::count_iteration() : g.started;
  if (g.budget && begun > g.budget) rl::ctx().rl_until("iteration budget reached", RL_INFO);
  if (g.pooled && work_stealing::stopped()) rl::ctx().rl_until("another process of the search failed", RL_INFO);
  if (g.progress && (g.started & 0xffff) == 0) {
    auto now = std::chrono::steady_clock::now();
    if (now - g.last_report >= std::chrono::seconds(2)) {
      double s = std::chrono::duration<double>(now - g.t0).count();
      std::fprintf(stderr, "%s: %llu iterations, %.0f/s\n", g.scenario->name.c_str(), (unsigned long long)g.started,
                   g.started / s);
      g.last_report = now;
    }
  }
}

void stat(const char* key, long value) {
  for (int i = 0; i < g.nstats; i++)
    if (std::strcmp(g.stats[i].key, key) == 0) {
      g.stats[i].value = value;
      return;
    }
  if (g.nstats < 16) g.stats[g.nstats++] = {key, value};
}

void begin(const Scenario& s, const RunOptions& o) {
  const MutantInfo* m = find_mutant(o.mutant);
  g_active_mutant = m ? m->id : Mutant::none;
  g_teardown_variant = o.unbatched ? teardown_variant::unbatched : teardown_variant::batched;
  reset_batch_states();
  g.scenario = &s;
  g.budget = o.budget;
  g.started = 0;
  g.progress = o.progress;
  g.t0 = g.last_report = std::chrono::steady_clock::now();
  g.nstats = 0;
  g.pooled = false;
  // About 2^20 slices in all: the tree splits some 20 binary choices deep, below which the
  // first iterations' paths run on (a leaf above that depth is run by several shards, owned by one).
  // A reduced search explores every thread above the split (verify/search/shard_scheduler.hpp), so
  // it splits fewer choices deep: 512 slices in all (measured on rwsem_readers_writer's reduced
  // search in 2 shards: 32 slices in all explored 5.2 million iterations between the shards,
  // 256 and more about the 3.5 million of the whole).
  const bool reduced = (o.reduce || o.search.reduce) && o.search.kind == SearchSpec::Kind::full;
  g_shard = {o.shard_index, o.shard_count,
             o.shard_count * (reduced ? std::max(16u, 512u / o.shard_count) : std::max(1u, (1u << 20) / o.shard_count))};
  g_foreign_iterations = 0;
  g_reduction_fallbacks = 0;
  g_blocked_iterations = 0;
  std::fill_n(g_backtracks, kRaceKinds, 0);
  g_floor_loads = g_floor_unkept = 0;
  g_fence_races_unused = 0;
}

namespace {
history_reader* g_pool_reader = nullptr;

// A new worker counts its own iterations and figures from zero: the first process adds them up.
void worker_reset() {
  g.started = 0;
  g.progress = false;
  g_foreign_iterations = 0;
  g_reduction_fallbacks = 0;
  g_blocked_iterations = 0;
  std::fill_n(g_backtracks, kRaceKinds, 0);
  g_floor_loads = g_floor_unkept = 0;
  g_fence_races_unused = 0;
  if (g_pool_reader) g_pool_reader->events.formatted = g_pool_reader->events.fields_unlike_text = 0;
}

// Which result decides when several processes of one search report: the lower rank.
int precedence(const RunResult& r) {
  if (r.result == "counterexample") return 0;
  if (r.result == "error") return 1;
  if (r.result == "incomplete") return 2;
  return 3;
}
}  // namespace

bool start_work_stealing(unsigned jobs, history_reader* reader, std::string* err) {
  if (!work_stealing::begin(jobs, err)) return false;
  g_pool_reader = reader;
  work_stealing::reset_hook = &worker_reset;
  g.pooled = true;
  return true;
}

std::string worker_blob(const RunResult& r, bool twin_yield, bool setup_after_split) {
  Outcome o;
  o.r = r;
  std::string blob = outcome_wire(o);
  blob += '\n';
  blob += twin_yield ? (setup_after_split ? 'B' : 'Y') : (setup_after_split ? 'S' : 'N');
  const long dropped = dropped_batch_states();
  blob.append(reinterpret_cast<const char*>(&dropped), sizeof dropped);
  for (const BatchSnapshot& st : explored_batch_states())
    blob.append(reinterpret_cast<const char*>(&st), sizeof st);
  return blob;
}

// What a worker's blob says after its outcome: N, Y (a twin yielded), S (the set-up thread
// mattered after a split), B (both).
static char worker_flags(const std::string& blob) {
  const size_t nl = blob.find('\n');
  return nl != std::string::npos && nl + 1 < blob.size() ? blob[nl + 1] : 'N';
}
bool worker_twin_yield(const std::string& blob) { return worker_flags(blob) == 'Y' || worker_flags(blob) == 'B'; }
bool worker_setup_after_split(const std::string& blob) {
  return worker_flags(blob) == 'S' || worker_flags(blob) == 'B';
}

RunResult merge_workers(RunResult own, const std::vector<std::string>& blobs, const std::string& lost) {
  std::vector<RunResult> parts{own};
  std::string unreadable;
  for (const std::string& b : blobs) {
    const size_t nl = b.find('\n');
    Outcome o;
    const size_t tail = nl == std::string::npos ? 0 : nl + 2 + sizeof(long);
    if (nl == std::string::npos || b.size() < tail || (b.size() - tail) % sizeof(BatchSnapshot) != 0 ||
        !outcome_from_wire(b.substr(0, nl), &o)) {
      unreadable = "a worker process of the search handed over a result that cannot be read";
      continue;
    }
    long dropped;
    std::memcpy(&dropped, b.data() + nl + 2, sizeof dropped);
    note_dropped_batch_states(dropped);
    for (size_t at = tail; at < b.size(); at += sizeof(BatchSnapshot)) {
      BatchSnapshot st;
      std::memcpy(&st, b.data() + at, sizeof st);
      record_batch_state(st);
    }
    parts.push_back(std::move(o.r));
  }
  const RunResult* verdict = &parts[0];
  for (const RunResult& p : parts)
    if (precedence(p) < precedence(*verdict)) verdict = &p;
  RunResult m = *verdict;
  m.iterations = 0;
  m.seconds = own.seconds;
  m.stats.clear();
  for (const RunResult& p : parts) {
    m.iterations += p.iterations;
    for (const auto& kv : p.stats)  // the reduction's counts add up; a scenario's figures are one search's
      m.stats[kv.first] = kv.first.rfind("reduction: ", 0) == 0 ? m.stats[kv.first] + kv.second
                                                                 : std::max(m.stats[kv.first], kv.second);
  }
  m.stats["work-stealing: processes"] = (long)parts.size();
  const std::string problem = !lost.empty() ? lost : unreadable;
  if (!problem.empty() && m.result != "counterexample") {
    m.result = "error";
    m.kind = "worker lost";
    m.message = problem;
  }
  return m;
}

RunResult twin_misuse_error(const Scenario& s, const RunOptions& o) {
  RunResult res = invalid_state(s, o, "");
  res.kind = "bad twin";
  res.message = "scenario " + s.name + " declares twins (twin_of), but a task with a twin blocked or ended before " +
                "its first access to shared state, so the search cannot order the twins there";
  return res;
}

void add_reduction_figures(RunResult* res) {
  static const char* const kRaceNames[kRaceKinds] = {"read/write", "write/write", "fence order", "lock order",
                                                     "global step"};
  res->stats["reduction: blocked iterations"] = (long)g_blocked_iterations;
  for (int k = 0; k < kRaceKinds; k++)
    res->stats[std::string("reduction: backtracks from ") + kRaceNames[k] + " races"] = (long)g_backtracks[k];
  res->stats["reduction: loads kept to the newest store"] = (long)g_floor_loads;
  res->stats["reduction: fence races left unreversed"] = (long)g_fence_races_unused;
  if (g_floor_unkept) res->stats["reduction: load floors dropped"] = (long)g_floor_unkept;
}

RunResult nondeterminism_error(const Scenario& s, const RunOptions& o) {
  RunResult res = invalid_state(s, o, "");
  res.kind = "not deterministic";
  res.message = "scenario " + s.name + ": the search is not deterministic (" + g_nondeterminism +
                "): what a run does depends on something other than its choices, so the search cannot "
                "cover every run";
  return res;
}

RunResult cpus_need_full_search(const Scenario& s, const RunOptions& o) {
  RunResult res = invalid_state(s, o, "");
  res.kind = "bad search";
  res.message = "scenario " + s.name + " places its tasks on CPUs, which only the full search keeps (not " +
                o.search.str() + "): use --search full";
  return res;
}

RunResult invalid_state(const Scenario& s, const RunOptions& o, const std::string& why) {
  RunResult res;
  res.scenario = s.name;
  res.mutant = o.mutant;
  res.search = o.search.str();
  res.variant = o.unbatched ? "unbatched" : "batched";
  res.result = "error";
  res.kind = "bad state";
  res.message = "state " + o.initial_state.substr(0, 60) + (o.initial_state.size() > 60 ? "..." : "") +
                " is not a Relacy search state of " + s.name + " under " + res.search + ": " + why;
  return res;
}

uint64_t iterations_begun() { return g.started; }

RunResult finish(const Scenario& s, const RunOptions& o, uint64_t started, rl::test_result_e r,
                 const std::string& output, const std::string& state, double seconds) {
  RunResult res;
  res.scenario = s.name;
  res.mutant = o.mutant;
  res.search = o.search.str();
  res.variant = o.unbatched ? "unbatched" : "batched";
  // Iterations begun; the budget stops the search at the start of one more.
  res.iterations = r == rl::test_result_until_condition_hit ? started - 1 : started;
  res.iterations -= std::min<uint64_t>(res.iterations, g_foreign_iterations);  // another shard's
  if (o.shard_count > 1 || o.sharded) {
    res.shard = std::to_string(o.shard_index) + "/" + std::to_string(o.shard_count);
    res.shard_search = o.search.str() + (o.reduce && !o.search.reduce ? "+reduce" : "");
    res.budget = o.budget;
    res.fingerprint = search_fingerprint(res);
  }
  res.seconds = seconds;
  for (int i = 0; i < g.nstats; i++) res.stats[g.stats[i].key] = g.stats[i].value;
  // Shown only when it happened: a race the reduction had to answer by exploring every thread.
  // With tasks on CPUs that is expected (a task kept off its CPU could not have run where the
  // race would place it: tests/reduction/README.md, "Tasks on CPUs"), a figure of the reduction's.
  if (g_reduction_fallbacks)
    res.stats[g_cpus.active ? "reduction: fallbacks (tasks on CPUs)" : "reduction fallbacks"] = (long)g_reduction_fallbacks;
  if (g_events_from_text) res.stats["events read from text"] = (long)g_events_from_text;
  if (g_event_fields_unlike_text) res.stats["event fields unlike text"] = (long)g_event_fields_unlike_text;
  g_active_mutant = Mutant::none;
  g_teardown_variant = teardown_variant::batched;
  if (r == rl::test_result_until_condition_hit) {
    res.result = "incomplete";
    res.message = "iteration budget of " + std::to_string(g.budget) + " reached before the search ended";
    return res;
  }
  if (r == rl::test_result_success) {
    if (o.search.kind == SearchSpec::Kind::random) {
      res.result = "incomplete";
      res.message = "random search sampled " + std::to_string(res.iterations) + " interleavings: not exhaustive";
    } else if (g_unnamed_heap_objects) {
      res.result = "incomplete";
      res.message = "objects in blocks of Relacy's heap allocated unlogged (" + std::to_string(g_unnamed_heap_objects) +
                    " frees of such a block) could be named only by their address, which moves from run to run "
                    "(tests/reduction/README.md, \"Names\"): search without --reduce";
    } else {
      res.result = "verified";
    }
    return res;
  }
  res.result = "counterexample";
  res.kind = kind_of(r);
  res.history = output;
  res.state = state;
  res.events = parse_relacy_history(output);  // now, while the model's object names are those of this iteration
  assign_call_chains(&res.events);
  if (!res.events.empty()) res.failing_step = res.events.back().step;
  // Relacy's first line is "RESULT" or "RESULT (detail)"; the model's checks put "kind: ..." in the detail.
  std::string first = output.substr(0, output.find('\n'));
  size_t open = first.find(" (");
  std::string detail = open == std::string::npos ? first : first.substr(open + 2, first.size() - open - 3);
  size_t colon = detail.find(": ");
  if ((r == rl::test_result_user_assert_failed || r == rl::test_result_user_invariant_failed) &&
      colon != std::string::npos && detail.rfind("assertion", 0) != 0) {
    res.kind = detail.substr(0, colon);
    res.message = detail.substr(colon + 2);
  } else {
    res.message = detail;
  }
  res.message = summarize(res);
  if (res.kind == "deadlock" && !res.events.empty()) attribute_deadlock(&res);
  return res;
}

}  // namespace exploration
