#include "tests/reduction/program_search.hpp"

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <vector>
#include "model/preempt.hpp"
#include "verify/search/explore.hpp"
#include "verify/search/work_stealing.hpp"
// Relacy defines new and delete as macros (its heap during iterations); the std::set below
// is filled outside iterations only.
#undef new
#undef delete

namespace program {
namespace {

const Program* g_program = nullptr;
uint64_t g_iterations = 0, g_budget = 0;

// The outcomes of one search: a fixed table, filled inside iterations (where anything allocated
// lands on Relacy's heap). Keys are outcome + 1 (0 marks a free slot).
constexpr size_t kSlots = 1 << 13;
uint64_t g_slots[kSlots];
size_t g_used = 0;
bool g_overflow = false;

void record(uint64_t outcome) {
  for (size_t i = (outcome * 0x9e3779b97f4a7c15ull) >> 51;; i = (i + 1) % kSlots) {
    if (g_slots[i] == outcome + 1) return;
    if (g_slots[i] == 0) {
      if (++g_used > kSlots / 2) g_overflow = true;
      g_slots[i] = outcome + 1;
      return;
    }
  }
}

rl::memory_order order(Order o) { return (rl::memory_order)o; }

// The program's objects.
struct shared_objects {
  rl::atomic<int> atomics[kAtomics];
  rl::var<int> vars[kVars];
  rl::mutex mutexes[kMutexes];
  rl::generic_event events[kEvents];
};

template <rl::thread_id_t N>
struct interpreter : rl::test_suite<interpreter<N>, N> {
  // In the test, at the same address in every run; for a "heap" program, in a block the set-up
  // allocates on Relacy's heap, whose address moves from run to run as Relacy's heap recycles
  // its blocks. Freed as operator delete does, explicitly: a delete expression would call the
  // sized operator delete, which Relacy does not replace.
  shared_objects fixed;
  shared_objects* objects = &fixed;
  int regs[N][kMaxRegisters];
  unsigned nregs[N];

  void before() {
    // Relacy's new macro logs the allocation (rl::new_proxy); its context's alloc does not.
    if (g_program->heap == Heap::logged) objects = RL_NEW_PROXY shared_objects;
    if (g_program->heap == Heap::unlogged) objects = ::new (rl::ctx().alloc(sizeof(shared_objects))) shared_objects;
    if (g_program->heap == Heap::none) objects = &fixed;
    for (auto& a : objects->atomics) a.store(0, rl::mo_relaxed, $);
    for (auto& v : objects->vars) v($) = 0;
    for (unsigned e = 0; e < kEvents; e++)
      objects->events[e].init(g_program->manual_reset[e], g_program->initially_set[e], RL_INFO);
    if (g_program->sync_named) {
      for (auto& m : objects->mutexes) announce_sync_primitive(&m);
      for (auto& e : objects->events) announce_sync_primitive(&e);
    }
    for (unsigned t = 0; t < N; t++) nregs[t] = 0;
    if (++g_iterations > g_budget && g_budget) rl::ctx().rl_until("budget", RL_INFO);
    exploration::work_stealing::count_iteration();  // a process's own count, for the split delay
    // The set-up is no thread's step (as in exploration::iteration_begin).
    if (exploration::g_history_reader) exploration::g_history_reader->skip();
  }

  void thread(unsigned t) {
    bool held[kMutexes] = {false, false};
    int* r = regs[t];
    unsigned& n = nregs[t];
    for (const Op& op : g_program->code[t]) {
      rl::atomic<int>& a = objects->atomics[op.object % kAtomics];
      switch (op.kind) {
        case Kind::load: r[n++] = a.load(order(op.order), $); break;
        case Kind::store: a.store(op.value, order(op.order), $); break;
        case Kind::fetch_add: r[n++] = a.fetch_add(1, order(op.order), $); break;
        case Kind::exchange: r[n++] = a.exchange(op.value, order(op.order), $); break;
        case Kind::cas: {
          int expected = op.value;
          const bool ok = a.compare_exchange_strong(expected, op.value + 1, order(op.order), $, order(op.failure), $);
          r[n++] = (ok ? 8 : 0) + (expected & 7);
          break;
        }
        case Kind::fence: rl::atomic_thread_fence(order(op.order), $); break;
        case Kind::lock:
          announce_blocking_lock();  // as the model's spin locks do (model/rl_env.hpp)
          objects->mutexes[op.object].lock($);
          held[op.object] = true;
          break;
        case Kind::unlock:
          if (held[op.object]) objects->mutexes[op.object].unlock($);
          held[op.object] = false;
          break;
        case Kind::trylock:
          r[n] = !held[op.object] && objects->mutexes[op.object].try_lock($);
          held[op.object] = held[op.object] || r[n];
          n++;
          break;
        case Kind::set: objects->events[op.object].set(RL_INFO); break;
        case Kind::reset: objects->events[op.object].reset(RL_INFO); break;
        case Kind::wait:  // a task on a CPU sleeps in schedule(): it gives the CPU up (model/sched.hpp)
          if (g_program->has_cpus()) g_cpus.in_schedule[t] = true;
          objects->events[op.object].wait(false, false, RL_INFO);
          g_cpus.in_schedule[t] = false;
          break;
        case Kind::read: r[n++] = objects->vars[op.object]($); break;
        case Kind::write: objects->vars[op.object]($) = op.value; break;
        case Kind::rand: r[n++] = (int)rl::rand(op.value); break;
        case Kind::yield: rl::yield(1, $); break;
        case Kind::pdisable: preempt_count_add(1, $); break;
        case Kind::penable: preempt_count_add(-1, $); break;
        case Kind::oncpu: r[n++] = task_on_cpu(op.object); break;
        case Kind::spin: {
          int turns = 0;
          for (; turns < 3 && !a.load(rl::mo_acquire, $); turns++) {
            cpu_spin_turn("the program's spin", $);
            rl::yield(1, $);
          }
          r[n++] = turns;
          break;
        }
      }
    }
    for (unsigned m = 0; m < kMutexes; m++)
      if (held[m]) objects->mutexes[m].unlock($);
  }

  void after() {
    // Twins' registers in a fixed order: a run and its mirror image are one outcome.
    unsigned first = 0;
    if (g_program->symmetric && std::lexicographical_compare(regs[1], regs[1] + nregs[1], regs[0], regs[0] + nregs[0]))
      first = 1;
    uint64_t outcome = 0;
    unsigned shift = 0;
    for (unsigned t = 0; t < N; t++) {
      const unsigned u = t < 2 && g_program->symmetric ? (t ^ first) : t;
      for (unsigned i = 0; i < nregs[u]; i++, shift += 4) outcome |= uint64_t(regs[u][i] & 15) << shift;
    }
    if (g_program->finals)
      for (unsigned a = 0; a < kAtomics; a++)
        outcome |= uint64_t(objects->atomics[a].load(rl::mo_relaxed, $) & 15) << (48 + 4 * a);
    for (auto& e : objects->events) e.deinit(RL_INFO);
    if (objects != &fixed) {
      objects->~shared_objects();
      (rl::ctx().free)(objects);
      // Frees nothing, as C++ allows, and is logged all the same (only here: each free is a
      // choice of Relacy's, which doubles the iterations).
      if (g_program->heap == Heap::unlogged) (rl::ctx().free)(static_cast<void*>(nullptr));
    }
    record(outcome);
  }
};

std::string failure_of(rl::test_result_e r) {
  switch (r) {
    case rl::test_result_success: return "";
    case rl::test_result_until_condition_hit: return "budget";
    case rl::test_result_deadlock: return "deadlock";
    case rl::test_result_data_race: return "data race";
    default: return rl::test_result_str(r);
  }
}

// A work-stealing worker's own counts start from zero (its parent counts its own).
void worker_reset() {
  g_iterations = 0;
  exploration::g_foreign_iterations = 0;
}

// A worker's result as it hands it over: its failure, its iterations, then its outcomes.
std::string worker_blob(const std::string& failure) {
  std::string b = failure + '\n';
  const uint64_t n = g_iterations - exploration::g_foreign_iterations;
  b.append(reinterpret_cast<const char*>(&n), sizeof n);
  for (uint64_t s : g_slots)
    if (s) b.append(reinterpret_cast<const char*>(&s), sizeof s);
  return b;
}

template <rl::thread_id_t N>
rl::test_result_e run(rl::test_params& params) {
  std::string state;
  return exploration::run_with<interpreter<N>>(params, &state);
}

}  // namespace

SearchResult search(const Program& p, const SearchOptions& o) {
  exploration::history_reader reader;
  std::ostream dropped(nullptr);
  rl::test_params params;
  params.search_type = rl::sched_full;
  params.output_stream = &dropped;
  params.progress_stream = &dropped;
  params.collect_history = o.reduce;
  g_program = &p;
  g_iterations = 0;
  g_budget = o.budget;
  std::fill_n(g_slots, kSlots, 0);
  g_used = 0;
  g_overflow = false;
  exploration::g_shard = {o.shard, o.shards, o.shards * 16};
  exploration::g_foreign_iterations = 0;
  exploration::g_reduction_fallbacks = 0;
  exploration::g_floor_loads = exploration::g_floor_unkept = 0;
  exploration::g_fence_races_unused = 0;
  exploration::g_reduce = o.reduce;
  exploration::g_history_reader = o.reduce ? &reader : nullptr;
  exploration::g_twin_misuse = false;
  exploration::g_twin_yield = false;
  exploration::g_setup_after_split = false;
  exploration::g_nondeterminism[0] = 0;
  exploration::g_twin_of[1] = o.twins ? 0 : -1;
  g_cpus.active = p.has_cpus();
  for (unsigned t = 0; t < kMaxThreads; t++) {
    g_cpus.cpu_of[t] = p.cpu_of[t];
    g_cpus.rt[t] = p.rt[t];
  }
  std::string no_pool;
  const bool pool = o.reduce && o.jobs > 1 && !o.twins && exploration::work_stealing::begin(o.jobs, &no_pool);
  exploration::work_stealing::reset_hook = &worker_reset;
  exploration::work_stealing::set_split_delay(o.split_delay);
  exploration::work_stealing::set_serial(o.serial);
  rl::test_result_e r;
  switch (p.threads) {
    case 2: r = run<2>(params); break;
    case 3: r = run<3>(params); break;
    default: r = run<4>(params); break;
  }
  exploration::g_reduce = false;
  exploration::g_history_reader = nullptr;
  exploration::g_shard = {0, 1, 1};
  exploration::work_stealing::set_split_delay(0);
  exploration::work_stealing::set_serial(false);
  exploration::g_twin_of[1] = -1;
  g_cpus.active = false;
  // As explore() does: a pass with twins is void once a task yielded; searched again without.
  const bool twin_yield = exploration::g_twin_yield;
  exploration::g_twin_yield = false;
  if (twin_yield && (r == rl::test_result_success || r == rl::test_result_until_condition_hit) &&
      !exploration::g_twin_misuse && !exploration::g_nondeterminism[0]) {
    SearchOptions without = o;
    without.twins = false;
    return search(p, without);
  }
  SearchResult res;
  res.failure = exploration::g_twin_misuse ? "bad twin" : exploration::g_nondeterminism[0] ? "not deterministic" : g_overflow ? "too many outcomes" : failure_of(r);
  // As explore() does: a pass of a search that named heap objects by address is void.
  if (res.failure.empty() && reader.unnamed_objects) res.failure = "unnamed heap objects";
  // As explore() does: a search whose set-up thread mattered after a split runs again in one
  // process (g_setup_after_split); a process says so in place of its failure.
  static const char kSetupAfterSplit[] = "set-up thread mattered after a split";
  bool again = exploration::g_setup_after_split;
  exploration::g_setup_after_split = false;
  if (again) res.failure = kSetupAfterSplit;
  if (pool && exploration::work_stealing::is_worker()) exploration::work_stealing::finish_worker(worker_blob(res.failure));
  res.iterations = g_iterations - exploration::g_foreign_iterations;
  res.floor_loads = exploration::g_floor_loads;
  res.fences_unused = exploration::g_fence_races_unused;
  for (uint64_t s : g_slots)
    if (s) res.outcomes.insert(s - 1);
  std::vector<std::string> blobs;
  std::string lost;
  if (pool && !exploration::work_stealing::end(&blobs, &lost)) res.failure = "worker lost: " + lost;
  for (const std::string& b : blobs) {  // the first failure in process order decides, as shards' do
    const size_t nl = b.find('\n');
    again = again || b.substr(0, nl) == kSetupAfterSplit;
    if (res.failure.empty()) res.failure = b.substr(0, nl);
    uint64_t n;
    std::memcpy(&n, b.data() + nl + 1, sizeof n);
    res.iterations += n;
    for (size_t at = nl + 1 + sizeof n; at + sizeof n <= b.size(); at += sizeof n) {
      std::memcpy(&n, b.data() + at, sizeof n);
      res.outcomes.insert(n - 1);
    }
    res.processes++;
  }
  if (again && pool) {
    SearchOptions one = o;
    one.jobs = 1;
    return search(p, one);
  }
  return res;
}

}  // namespace program
