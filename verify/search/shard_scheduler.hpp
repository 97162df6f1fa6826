// vmaverify's full search: Relacy's own depth-first tree search (rl::tree_search_scheduler,
// relacy/full_search_scheduler.hpp), restricted to one shard of the search tree and, when
// asked, reduced by source-DPOR with sleep sets (Abdulla et al., POPL 2014; README, "The
// reduction"). Only the choice of the next index at each thread-choice node is ours;
// scheduling, yields, timed and spurious wake-ups are Relacy's, except that a park is no yield
// (schedule_impl). With one shard and no reduction it explores the tree Relacy's full search
// would explore with that one change, in the same order; its paths are in Relacy's format.
#pragma once
#include "model/preempt.hpp"
#include "model/rl_env.hpp"
#include "verify/search/step_footprint.hpp"
#include "verify/search/work_stealing.hpp"

namespace exploration {

// Which shard of the full-search tree to explore: index in [0, count).
// The tree is split into `slices` slices (a multiple of count), slice v going to shard v mod
// count, so that a skewed split (one subtree far larger than its sibling) still spreads evenly.
struct ShardPlan {
  unsigned index = 0, count = 1, slices = 1;
};
extern ShardPlan g_shard;
// Symmetry between identical tasks (scenario_base::twin_of): g_twin_of[j] = i < j when thread j
// runs thread i's code on mirrored state, so that only the runs in which i touches shared state
// first are explored (every other is one of those with the two tasks' names swapped); -1 for none.
extern std::array<int, 32> g_twin_of;
// Whether a scenario's twins are used (on; tests compare with it off).
extern bool g_symmetry;
// A task with a twin blocked or ended before its second step: the scenario's twin_of is wrong.
extern bool g_twin_misuse;
// A task yielded in a search with twins. Relacy's yield priorities hold the yielding task back
// until each other task has moved, and release it when one of them blocks (on_thread_block):
// a twin's wait is such a block, so the runs the wait leaves are not mirror images of those it
// removes (tests/reduction/README.md, "Symmetry"). The search ends at once; explore() runs it
// again without twins.
extern bool g_twin_yield;
// The set-up thread's stale read mattered (setup_matters) after the search had split into
// processes (work-stealing): the processes kept the first thread choice's sleepers, which from
// then on none may keep, and some may have gone on without knowing. The search ends at once;
// explore() runs it again in one process.
extern bool g_setup_after_split;
// Set when a run did not repeat the choices recorded for its prefix: what differed (empty if
// nothing did). explore() reports it as an error; the search no longer covers every run.
extern char g_nondeterminism[160];
// Iterations this process ran but does not own (a leaf reached before the tree split far
// enough to give it one owner): run by several shards, counted by its owner only.
extern uint64_t g_foreign_iterations;
// Reduction on; the footprints of the steps come from this reader of Relacy's history.
extern bool g_reduce;
// Races the reduction could not place on a thread choice (none while the model keeps to the
// README's rules); each made every earlier thread choice of its iteration explore all threads.
extern uint64_t g_reduction_fallbacks;
// The reduction's figures (run --json): iterations that ended sleep-set blocked (every thread
// that could run at some choice was asleep: a run equivalent to one explored elsewhere), and the
// backtrack points added, by the kind of race that added them.
enum RaceKind { race_read_write, race_write_write, race_fence_order, race_lock_order, race_global_step, kRaceKinds };
extern uint64_t g_blocked_iterations;
extern uint64_t g_backtracks[kRaceKinds];
// The load floor's figures: loads whose older store was not explored; floors dropped because the
// step was not the sleeper's one load (none so far: check_load_floor).
extern uint64_t g_floor_loads, g_floor_unkept;
// Races of two seq_cst fences left unreversed: no later step could tell their order apart
// (fences_used). Counted per process: a work-stealing worker counts those it inherited too.
extern uint64_t g_fence_races_unused;
extern history_reader* g_history_reader;
// Events of the last reduced search read from their printed text: of a type not in
// verify/search/footprint_types.cpp (the same footprint, slower).
extern uint64_t g_events_from_text;
// Frees, in the last reduced search, of blocks of Relacy's heap allocated unlogged that held an
// object some event touched (history_reader::unnamed_objects): its footprints named those
// objects by address, which moves, so it cannot stand behind a pass.
extern uint64_t g_unnamed_heap_objects;
// Check every event of a known type against its text too (tests); the events whose readings differed.
extern bool g_check_event_fields;
extern uint64_t g_event_fields_unlike_text;
// The search state of the failing iteration (Relacy writes none when it collects history, as
// the reduction needs): "ITERATION PATH", as Relacy's own get_state writes it.
extern rl::string g_failure_state;


// The slices [lo, hi) a subtree belongs to.
struct ShardRange {
  unsigned lo, hi;
  // Whether a slice of shard s (of n) is in the range.
  bool has(unsigned s, unsigned n) const { return hi - lo >= n || (s + n - lo % n) % n < hi - lo; }
};

// The slices of child j of a node with `count` children whose subtree has the slices r: more
// slices than children split into contiguous blocks; fewer give each slice every m-th child.
// Either way the children's ranges cover r, and every slice of r gets a child.
inline ShardRange child_range(ShardRange r, unsigned count, unsigned j) {
  const unsigned m = r.hi - r.lo;
  if (m >= count) return {r.lo + (unsigned)((uint64_t)j * m / count), r.lo + (unsigned)((uint64_t)(j + 1) * m / count)};
  return {r.lo + j % m, r.lo + j % m + 1};
}

template <rl::thread_id_t thread_count>
class shard_scheduler
    : public rl::tree_search_scheduler<shard_scheduler<thread_count>, rl::tree_search_scheduler_thread_info<thread_count>,
                                       thread_count> {
  static_assert(thread_count <= 32, "thread sets are 32-bit masks");

 public:
  typedef rl::tree_search_scheduler<shard_scheduler<thread_count>, rl::tree_search_scheduler_thread_info<thread_count>,
                                    thread_count>
      base_t;
  typedef typename base_t::thread_info_t thread_info_t;
  typedef typename base_t::shared_context_t shared_context_t;

  shard_scheduler(rl::test_params& params, shared_context_t& ctx, rl::thread_id_t dynamic_thread_count)
      : base_t(params, ctx, dynamic_thread_count) {}

  ~shard_scheduler() {
    if (this->params_.test_result == rl::test_result_success) return;
    std::basic_ostringstream<char, std::char_traits<char>, rl::raw_allocator<char>> ss;
    ss << this->params_.stop_iteration << " ";
    this->get_state_impl(ss);
    g_failure_state = ss.str();
  }

  // As tree_search_scheduler's, but through our rand_impl.
  rl::thread_id_t iteration_begin_impl() {
    // Relacy's history of events grows for the whole run when collected, as a reduced search
    // collects it: cleared at each iteration's start, or a long search runs out of memory.
    if (g_reduce) {
      g_history_reader->skip();  // the last iteration's after() and destructor: their frees
      relacy_history::of(rl::ctx()).clear();
      g_history_reader->restart();
    }
    this->stree_depth_ = 0;
    g_sync_primitive_count = 0;  // before the test is built: it announces its primitives
    g_sync_primitives_full = false;
    steps_.clear();
    std::fill_n(last_step_of_, thread_count, SIZE_MAX);
    std::fill_n(g_blocking_lock, 32, false);
    pool_.clear();
    enablers_.clear();
    pending_.clear();
    step_.clear();
    in_step_ = false;
    sleep_blocked_ = false;
    setup_thread_saw_yield_ = setup_read_stale_ = false;
    writes_.clear();
    rewritten_.clear();
    setup_loaded_.clear();
    setup_loaded_before_yield_.clear();
    twins_ = false;
    for (rl::thread_id_t t = 0; t < thread_count; t++) twins_ = twins_ || g_twin_of[t] >= 0;
    blocked_at_ = SIZE_MAX;
    carried_.clear();
    std::fill_n(floor_, thread_count, 0);
    floor_object_ = 0;
    floor_node_ = -1;
    follow_.clear();
    follow_pos_ = 0;
    no_reduction_ = !g_reduce || this->total_dynamic_threads_ != 0;
    choice_depth_ = -1;
    gate_reset();
    cpu_reset();
    unsigned const index = rand_impl(this->running_threads_count, rl::sched_type_sched);
    const rl::thread_id_t th = this->running_threads[index];
    setup_thread_ = th;
    if (g_reduce) begin_step(th);
    started(th);
    cpu_switched(th, th, 0);
    return th;
  }

  // Relacy's backtracking (the deepest node with a next choice), skipping other shards' choices
  // and, at thread choices, every thread that is asleep or not in the node's backtrack set.
  bool iteration_end_impl() {
    RL_VERIFY(this->stree_depth_ == this->stree_.size());
    if (g_reduce) {
      end_step();
      add_backtracks();
      g_blocked_iterations += sleep_blocked_;
      if (setup_read_stale_) setup_matters();
    }
    const ShardRange leaf = this->stree_.empty() ? root()
                                                 : child_range(node_.back().range, this->stree_.back().count_,
                                                               this->stree_.back().index_);
    if (leaf.lo % g_shard.count != g_shard.index) g_foreign_iterations++;
    if (g_twin_yield) return true;  // the search with twins is void (g_twin_yield)
    if (g_setup_after_split) return true;  // so is one in several processes (g_setup_after_split)
    for (size_t i = this->stree_.size(); i != 0; --i) {
      auto& n = this->stree_[i - 1];
      Node& nd = node_[i - 1];
      // A choice that is no thread's, above the first this process took itself: its other
      // options are another process's (own_depth_).
      if (!nd.decision && (long)(i - 1) < own_depth_) continue;
      unsigned next = nd.decision ? next_thread_choice(nd, n.count_) : next_choice(nd, n.count_, n.index_ + 1);
      // Where processes of a work-stealing search share the node, a choice another one claimed
      // is its to explore (claim); one a split gave this process was claimed for it.
      while (nd.shared && next < n.count_ && !(nd.given & bit(nd.thread[next])) && !claim(i - 1, nd.thread[next])) {
        nd.explored |= bit(nd.thread[next]);
        next = next_thread_choice(nd, n.count_);
      }
      if (next < n.count_) {
        this->stree_.resize(i);
        node_.resize(i);
        n.index_ = next;
        own_depth_ = std::min(own_depth_, (long)(i - 1));
        guide_node_ = nd.decision ? (long)(i - 1) : -1;
        // The next iteration repeats the steps that ended before this node: their races are known.
        // A wait completed below the node may complete differently: its step is analysed again.
        reused_ = steps_before(i - 1);
        if (g_reduce && work_stealing::place_free()) split(i - 1);
        return false;
      }
    }
    g_fence_races_unused += fences_pending_.size();
    fences_pending_.clear();
    return true;
  }

  // The steps of the last iteration that the next one repeats when it leaves the path at node d:
  // those that ended above it, except a wait completed at or below it (it may complete otherwise).
  size_t steps_before(size_t d) const {
    size_t k = 0;
    while (k < analysed_ && steps_[k].depth_end <= d &&
           (!steps_[k].open_wait || (steps_[k].completed_by != SIZE_MAX && steps_[steps_[k].completed_by].depth_end <= d)))
      k++;
    return k;
  }

  // As tree_search_scheduler's: replay the recorded path, else open a node at its first choice.
  // What a choice of Relacy's search tree decides (rl::sched_type), for messages.
  static const char* choice_kind(rl::sched_type t) {
    switch (t) {
      case rl::sched_type_sched: return "which task runs";
      case rl::sched_type_atomic_load: return "which store a load reads";
      case rl::sched_type_cas_fail: return "whether a compare-exchange fails spuriously";
      case rl::sched_type_mem_realloc: return "whether a free is deferred";
      default: return "a choice of the program's or a wake-up's";
    }
  }

  unsigned rand_impl(unsigned limit, rl::sched_type t) {
    const size_t depth = this->stree_depth_++;
    const bool decision = t == rl::sched_type_sched && !no_reduction_;
    if (t == rl::sched_type_sched) {
      choice_depth_ = (long)depth;
      choice_decision_ = decision;
    }
    if (depth == this->stree_.size()) {
      Node node;
      node.range = depth == 0 ? root()
                              : child_range(node_[depth - 1].range, this->stree_[depth - 1].count_,
                                            this->stree_[depth - 1].index_);
      node.decision = decision;
      node.single = sleep_blocked_;
      unsigned first;
      if (decision) {
        for (unsigned j = 0; j < limit; j++) node.thread[j] = this->running_threads[j];
        node.sleep = carried_;
        // Above the depth where the tree splits into shards, every thread is explored: the
        // races that would ask for them may lie in another shard's subtrees.
        node.full = g_shard.count > 1 && node.range.hi - node.range.lo > 1;
        first = next_choice(node, limit, 0);
        if (first < limit && follow_pos_ < follow_.size()) first = guided_choice(node, limit, first);
        if (first == limit) {
          // Every thread that may run here is asleep: every run from here is equivalent to one
          // explored elsewhere. The iteration must still end: one path, no alternatives below.
          sleep_blocked_ = node.single = true;
          node.sleep.clear();
          first = next_choice(node, limit, 0);
        }
        if (first < limit) node.backtrack |= bit(node.thread[first]);
      } else {
        if (t == rl::sched_type_atomic_load) load_floor(node, depth, limit);
        first = next_choice(node, limit, 0);
      }
      RL_VERIFY(first < limit);  // the children's ranges cover r, which has a slice of this shard
      typename base_t::stree_node n = {limit, first, t, 0};
      this->stree_.push_back(n);
      node_.push_back(node);
    }
    auto& n = this->stree_[depth];
    Node& nd = node_[depth];
    if (t == rl::sched_type_atomic_load) load_choice_ = true;
    // A node that differs from the recorded one: the run did not repeat its recorded prefix, so
    // the index replayed here would choose among other things (Relacy's own check, RL_VERIFY,
    // is compiled out of release builds). The search stops: its tree no longer says what ran.
    if (n.type_ != t || n.count_ != limit || nd.decision != decision) {
      if (!g_nondeterminism[0])
        std::snprintf(g_nondeterminism, sizeof g_nondeterminism,
                      "choice %zu of a run had %u options (%s) where the same path had %u (%s)", depth, limit,
                      choice_kind(t), n.count_, choice_kind(n.type_));
      if (rl::ctx().threadx_) rl::ctx().rl_until("the search is not deterministic", RL_INFO);
      return 0;
    }
    if (decision) {
      nd.explored |= bit(nd.thread[n.index_]);
      if ((long)depth == guide_node_) follow_guide(nd, nd.thread[n.index_]);
      if (nd.single && blocked_at_ == SIZE_MAX) blocked_at_ = steps_.size();
    }
    return n.index_;
  }

  // Relacy's, with the step boundaries the reduction needs: the running step ends when its
  // thread reaches Relacy's scheduler, the next begins with the thread Relacy switches to.
  // A yield changes when the other threads may run again (Relacy's yield priorities): such a
  // step conflicts with every step; a park is not one here (below). A timed or spuriously waking waiter
  // (woken by a choice that is no thread's) turns the reduction off for the rest of the iteration.
  rl::thread_id_t schedule_impl(rl::unpark_reason& reason, unsigned yield) {
    if (this->timed_thread_count_ || this->spurious_thread_count_) no_reduction_ = true;
    // A park is a yield to Relacy (context::park_current_thread): the parked thread may not run
    // again until every other thread has passed a scheduling point. The kernel has no such rule
    // (a woken task may run at once, before the others move), so a park does not yield here.
    if (yield && this->thread_->state_ == rl::thread_state_blocked) yield = 0;
    // Relacy's yield rule for loads (thread_info::get_load_index) holds for parks too, but only a
    // yield counts here (setup_matters says why).
    if (yield && this->thread_->index_ == setup_thread_) {
      setup_thread_saw_yield_ = true;
      setup_loaded_before_yield_ = setup_loaded_;
    }
    if (yield && twins_) g_twin_yield = true;
    if (g_reduce) {
      if (yield || no_reduction_) step_.global = true;
      end_step();
    }
    const rl::thread_id_t prev = this->thread_->index_;
    gate(prev);
    cpu_gate();
    choice_depth_ = -1;
    const rl::thread_id_t th = base_t::schedule_impl(reason, yield);
    if (g_reduce) {
      note_enabled();
      begin_step(th);
    }
    started(th);
    cpu_switched(th, prev, yield);
    return th;
  }

  // A saved search state (Relacy's format, get_state_impl) replays here, not under Relacy's own
  // full search, whose parks yield: the recorded nodes, none of them a reduction decision.
  void set_state_impl(std::istream& ss) {
    base_t::set_state_impl(ss);
    Node replayed;
    replayed.range = root();
    node_.assign(this->stree_.size(), replayed);
  }

  bool can_switch(thread_info_t&) { return true; }
  void on_switch(thread_info_t&) {}

  // Relacy's progress estimate, which it converts to a 64-bit count: capped below 2^64 (a deep
  // tree's product of choices overflows it, undefined behaviour).
  double iteration_count_approx() {
    double total = 1;
    for (size_t i = 0; i != this->stree_.size() && total < 1e18; ++i) total *= this->stree_[i].count_;
    return std::min(total, 1e18);
  }

 private:
  typedef uint32_t Threads;  // a set of threads, bit i for thread i
  static Threads bit(rl::thread_id_t th) { return Threads(1) << th; }

  // A thread whose next step is known to lead only where the search has been (asleep), or a
  // thread choice explored at a node: the thread and what its step touched.
  struct Entry {
    rl::thread_id_t thread;
    Footprint touched;
    // Explored by another process of a work-stealing search, which may still be at it, with a
    // footprint not known to be the union over all its runs: never a sleeper here (split).
    bool elsewhere = false;
    // Some run of its step touched an object whose address may differ from run to run (step_names_move).
    bool names_move = false;
  };
  typedef typename rl::vector<Entry>::type Entries;
  typedef typename rl::vector<uint8_t>::type Guide;  // threads, one per step, in order
  typedef typename rl::vector<Guide>::type Guides;
  struct Node {
    ShardRange range;        // the slices of this node's subtree
    bool decision = false;   // a thread choice where the reduction applies
    bool single = false;     // below a state where every thread was asleep: no alternatives
    bool full = false;       // decision: explore every thread that is not asleep
    bool apart = false;      // decision: no choice explored here puts its thread to sleep (setup_matters)
    bool shared = false;     // decision: on the path of a work-stealing split: other processes explore here too
    Threads given = 0;       // decision: the threads a split gave this process here (claimed for it by its parent)
    bool newest_only = false;  // a load's choice: only the newest store is explored (the load floor)
    Threads backtrack = 0;   // decision: the threads to explore here (source set)
    Threads explored = 0;    // decision: the threads explored here so far
    rl::thread_id_t thread[thread_count];  // decision: the thread of each choice
    Entries sleep;           // decision: asleep on arrival
    Entries done;            // decision: each choice taken, with the union of its steps' footprints
    // decision: for a thread added to the backtrack set, the order of the threads' next steps
    // (first that thread's) of the reversed race that added it: notdep(i).j (add_backtracks).
    Guides guides;
  };
  typename rl::vector<Node>::type node_;  // parallel to stree_

  // One step of the current iteration: what ran from one entry into Relacy's scheduler to the next.
  enum class Chosen { decision, every, forced };  // at a thread choice / a node explored in full / no choice
  struct Step {
    rl::thread_id_t thread;
    Chosen chosen;
    long node;                     // decision: the node that chose it
    size_t objects_begin, objects_end;  // its footprint in pool_
    bool global;
    size_t enablers_begin, enablers_end;  // in enablers_: the steps that unblocked its thread
    size_t depth_end;              // the search-tree nodes taken when it ended
    // It ended with its thread parked in a wait whose object Relacy records only when the wait
    // completes (an event's, a semaphore's): the step that completes it, SIZE_MAX until then.
    bool open_wait;
    size_t completed_by;
    // What it did depends on what its thread knows (Relacy's clocks), not only on the order of
    // the steps: it accessed a variable (checked for a data race) or loaded an atomic with no
    // choice of store (get_load_index: what the thread knew may have ruled the older one out).
    bool knows;
  };
  typename rl::vector<Step>::type steps_;
  typename rl::vector<uintptr_t>::type pool_;
  typename rl::vector<size_t>::type enablers_;
  typename rl::vector<std::pair<rl::thread_id_t, size_t>>::type pending_;  // (thread, step that unblocked it)
  typename rl::vector<long>::type clocks_;   // per step, per thread: the last step of that thread before it
  // The same, through races and wake-ups only, not a mutex's releases: fewer orders than clocks_
  // (a race hidden behind a release is missed too), so add_lock_races reverses more, never fewer.
  typename rl::vector<long>::type lock_clocks_;
  struct Race {
    size_t i, j;
    RaceKind kind;
  };
  typename rl::vector<Race>::type races_;
  // Fence races not reversed yet (fences_used): found in this iteration or in the steps it repeats.
  typename rl::vector<Race>::type fences_pending_;
  // Per step, like clocks_, through every order but the seq_cst fences' among themselves.
  typename rl::vector<long>::type plain_clocks_;
  typename rl::vector<size_t>::type unordered_;  // fences_used's scratch
  typename rl::vector<size_t>::type v_;  // reverse_race's v: the steps of notdep(i).j
  typename rl::vector<std::pair<uintptr_t, size_t>>::type last_lock_;  // per mutex, its last lock (add_lock_races)
  typename rl::vector<size_t>::type steps_of_[thread_count];  // per thread, its steps (add_backtracks)
  size_t analysed_ = 0;  // steps of the last iteration whose races add_backtracks analysed
  size_t reused_ = 0;    // of those, the steps the current iteration repeats
  unsigned block_count_[thread_count];      // at the start of the current step
  size_t last_step_of_[thread_count];       // per thread, its last step so far; SIZE_MAX for none

  Footprint step_;          // what the current step has touched (read from the history as it ends)
  Footprint merged_;        // complete_wait's scratch
  bool in_step_ = false;
  long choice_depth_ = -1;  // the thread-choice node of the step about to begin, -1 if none
  bool choice_decision_ = false;
  Entries carried_;         // asleep when the current step ends, before filtering by it
  Guide follow_;            // the threads of the steps to take next (follow_guide), from follow_pos_
  size_t follow_pos_ = 0;
  long guide_node_ = -1;    // the node whose next choice's guide the next iteration follows
  // Work-stealing: the shallowest node whose choice on the path this process took itself (a
  // worker's first, at its split, or one it claimed above). Above it the path is the parent's,
  // still being explored there: the other options of a choice that is no thread's (which store a
  // load reads) are the parent's to explore, as only thread choices are claimed (split).
  long own_depth_ = 0;
  bool sleep_blocked_ = false, no_reduction_ = true;
  bool twins_ = false;                   // some thread has a twin (g_twin_of)
  rl::thread_id_t setup_thread_ = 0;     // the thread chosen first, which ran the set-up
  bool setup_thread_saw_yield_ = false;  // it has yielded in this iteration
  bool setup_read_stale_ = false;        // then loaded what it may read only because it ran the set-up
  typename rl::vector<std::pair<uintptr_t, rl::thread_id_t>>::type writes_;  // per object: its first writer
  typename rl::vector<uintptr_t>::type rewritten_;  // objects written more than once
  // Objects the set-up thread loaded so far; those it had loaded before its last yield.
  typename rl::vector<uintptr_t>::type setup_loaded_, setup_loaded_before_yield_;
  size_t blocked_at_ = SIZE_MAX;  // the first step below a state where every thread was asleep
  // The load floor (load_floor): per thread, the object whose newest store its next step must
  // read, 0 for none; the current step's; the node it pruned in the current step, -1 if none.
  uintptr_t floor_[thread_count];
  uintptr_t floor_object_ = 0;
  long floor_node_ = -1;
  Footprint first_;  // check_load_floor's scratch
  bool load_choice_ = false;  // the current step's load had a choice of store (Step::knows)

  static ShardRange root() { return {0, g_shard.slices}; }

  // Symmetry: a task with a twin may not begin its second step (its first access to shared
  // state; the first runs only private code up to it) before its twin has begun its own. Every
  // run has a mirror image, the two tasks' names swapped, that keeps this order, so the search
  // explores the program with this extra wait in place of the original. The wait is a block, as
  // a park is: the twin's second step is what enables the task, for the reduction too.
  unsigned char begun_[thread_count];  // steps begun per thread, up to 2
  Threads gated_ = 0;
  bool gating_ = false;
  void gate_reset() {
    std::fill_n(begun_, thread_count, 0);
    gated_ = 0;
  }
  bool has_twin_waiting(rl::thread_id_t t) const { return g_twin_of[t] >= 0 && begun_[g_twin_of[t]] < 2; }
  // The running thread ends a step: after its first, it waits for its twin's second.
  void gate(rl::thread_id_t t) {
    if (begun_[t] != 1 || !has_twin_waiting(t) || this->threads_[t].state_ != rl::thread_state_running) return;
    gating_ = true;
    this->block_thread(t, false);
    gating_ = false;
    gated_ |= bit(t);
  }
  // Thread th begins a step (after begin_step, which counted the blocks as they were before it).
  void started(rl::thread_id_t th) {
    if (begun_[th] >= 2 || ++begun_[th] < 2) return;
    for (rl::thread_id_t j = 0; j < thread_count; j++)
      if (g_twin_of[j] == (int)th && (gated_ & bit(j))) {
        gated_ &= ~bit(j);
        this->unblock_thread(j);
      }
  }

  // CPUs (model/preempt.hpp), for a scenario that places its tasks on them: before each choice,
  // every task that may not take its CPU from the task holding it is blocked (as a twin's wait
  // is), and unblocked once it may; the task chosen takes its CPU.
  Threads cpu_gated_ = 0;
  Threads cpu_gated_at_begin_ = 0;  // at the start of the current step
  // A thread's block count without the CPU gate's block.
  unsigned real_block_count(rl::thread_id_t t) const { return this->threads_[t].block_count_ - ((cpu_gated_ >> t) & 1); }
  // The same at the start of the current step.
  unsigned real_block_count_at_begin(rl::thread_id_t t) const { return block_count_[t] - ((cpu_gated_at_begin_ >> t) & 1); }
  // The CPUs' state the steps read and write (add_cpu_footprint): which task holds each CPU, the
  // CPUs whose holder keeps the others off (preempt_count above 0, or SCHED_FIFO, and not
  // asleep), and the tasks that run on their CPU (what owner_on_cpu reads).
  struct CpuState {
    int curr[32];
    uint32_t exclusive;
    Threads on;
  };
  CpuState cpu_before_;  // at the start of the current step, before its task took its CPU
  CpuState cpu_state() const {
    CpuState st;
    st.exclusive = st.on = 0;
    for (int c = 0; c < 32; c++) {
      const int cur = c < cpu_world::kMaxTasks ? g_cpus.curr[c] : -1;
      st.curr[c] = cur;
      if (cur >= 0 && !cpu_released((rl::thread_id_t)cur) && (g_cpus.preempt_count[cur] > 0 || g_cpus.rt[cur]))
        st.exclusive |= 1u << c;
    }
    for (rl::thread_id_t t = 0; t < thread_count; t++) {
      if (cpu_released(t)) continue;
      const int c = g_cpus.cpu_of[t];
      if (c < 0 || st.curr[c] == (int)t) st.on |= bit(t);
    }
    return st;
  }
  void lock_cpu(int c) {
    step_.add_lock_order(kCpuExclusive + (uintptr_t)c, true);
    step_.add_release(kCpuExclusive + (uintptr_t)c, false);
  }
  // What the step of thread th that just ended did to the CPUs, as its footprint: it took its
  // CPU from another task (a write of the holder; and a lock, as the taker could only run while
  // no task kept it off), or kept it and read the holder (had it been preemptible, another task
  // could have taken the CPU before the step); it began or ended an exclusive hold of a CPU (a
  // lock, an unlock: a task kept off waits for the unlock as a mutex's waiter does, and its take
  // races with the lock, not the unlock); it woke a task of a CPU (which reads that CPU's
  // holder); it changed whether a task runs, or read it (owner_on_cpu).
  void add_cpu_footprint(rl::thread_id_t th) {
    const CpuState after = cpu_state();
    const int c = g_cpus.cpu_of[th];
    uint32_t locked = 0;
    if (c >= 0 && c < 32) {
      if (cpu_before_.curr[c] != (int)th) {
        step_.add(kCpuCurr + (uintptr_t)c, true);
        lock_cpu(c);
        locked |= 1u << c;
      } else if (!((cpu_before_.exclusive >> c) & 1)) {
        step_.add(kCpuCurr + (uintptr_t)c, false);
      }
    }
    for (int d = 0; d < 32; d++) {
      const bool was = (cpu_before_.exclusive >> d) & 1, is = (after.exclusive >> d) & 1;
      if (!was && is && !((locked >> d) & 1)) lock_cpu(d);
      if (was && !is) step_.add_release(kCpuExclusive + (uintptr_t)d, true);
    }
    for (rl::thread_id_t t = 0; t < thread_count; t++) {
      const int d = g_cpus.cpu_of[t];
      const unsigned before = real_block_count_at_begin(t);
      if (t != th && d >= 0 && d < 32 && real_block_count(t) < before) step_.add(kCpuCurr + (uintptr_t)d, false);
      if (((cpu_before_.on ^ after.on) >> t) & 1) step_.add(kOnCpu + t, true);
      if ((g_cpus.on_cpu_read >> t) & 1) step_.add(kOnCpu + t, false);
    }
    g_cpus.on_cpu_read = 0;
  }
  void cpu_reset() {
    cpu_gated_ = 0;
    if (g_cpus.active) g_cpus.iteration_begin();
  }
  // Whether task t gives its CPU up: it ended, or it sleeps in schedule().
  bool cpu_released(rl::thread_id_t t) const {
    const auto& ti = this->threads_[t];
    if (ti.state_ == rl::thread_state_finished) return true;
    return g_cpus.in_schedule[t] && ti.block_count_ > ((cpu_gated_ & bit(t)) ? 1u : 0u);
  }
  // Whether task t may run now: its CPU is free, its own, or held by a preemptible task that is
  // not SCHED_FIFO.
  bool cpu_may_run(rl::thread_id_t t) const {
    const int c = g_cpus.cpu_of[t];
    if (c < 0) return true;
    const int cur = g_cpus.curr[c];
    return cur < 0 || cur == (int)t || cpu_released((rl::thread_id_t)cur) ||
           (g_cpus.preempt_count[cur] == 0 && !g_cpus.rt[cur]);
  }
  void cpu_gate() {
    if (!g_cpus.active) return;
    for (rl::thread_id_t t = 0; t < thread_count; t++) {
      if (this->threads_[t].state_ == rl::thread_state_finished) continue;
      const bool may = cpu_may_run(t), gated = cpu_gated_ & bit(t);
      if (!may && !gated) {
        cpu_gated_ |= bit(t);
        this->block_thread(t, false);
      } else if (may && gated) {
        cpu_gated_ &= ~bit(t);
        this->unblock_thread(t);
      }
    }
  }
  // Task th was chosen after prev (a yield if yield): it takes its CPU; which tasks run and
  // which are kept off their CPU is published for the model; a spin turn after which no other
  // task could run while one of the spinner's CPU is kept off it is counted.
  void cpu_switched(rl::thread_id_t th, rl::thread_id_t prev, unsigned yield) {
    if (!g_cpus.active) return;
    if (g_cpus.cpu_of[th] >= 0) g_cpus.curr[g_cpus.cpu_of[th]] = (int)th;
    uint32_t on = 0, off = 0;
    for (rl::thread_id_t t = 0; t < thread_count; t++) {
      if (cpu_released(t)) continue;
      const int c = g_cpus.cpu_of[t];
      if (c < 0 || g_cpus.curr[c] == (int)t) on |= bit(t);
      else off |= bit(t);
    }
    g_cpus.on_cpu = on;
    g_cpus.preempted = off;
    if (th != prev) {
      std::fill_n(g_cpus.lone_spins, thread_count, 0);
    } else if (yield) {
      bool kept_off = false;
      for (rl::thread_id_t t = 0; t < thread_count; t++)
        if ((off & bit(t)) && g_cpus.same_cpu((int)t, (int)th)) kept_off = true;
      g_cpus.lone_spins[th] = kept_off ? g_cpus.lone_spins[th] + 1 : 0;
    }
  }

 public:
  // Relacy's, called when no thread can run (a park, an end, a yield): and a task that gave its
  // CPU up lets the others of its CPU run.
  void purge_blocked_threads() {
    base_t::purge_blocked_threads();
    cpu_gate();
  }

  // Relacy's, and: a task with a waiting twin that blocks or ends before its second step would
  // leave the twin waiting for ever; its twin_of claim is wrong (README, "Symmetry").
  void on_thread_block(rl::thread_id_t th, bool yield) {
    base_t::on_thread_block(th, yield);
    if (gating_ || begun_[th] >= 2) return;
    for (rl::thread_id_t j = 0; j < thread_count; j++)
      if (g_twin_of[j] == (int)th) g_twin_misuse = true;
  }

 private:
  static bool asleep(const Node& n, rl::thread_id_t th) {
    for (const Entry& e : n.sleep)
      if (e.thread == th) return true;
    return false;
  }

  // The first choice >= from that this shard explores at the node; count if none.
  static unsigned next_choice(const Node& n, unsigned count, unsigned from) {
    if (n.single) return from == 0 ? next_own(n.range, count, 0) : count;
    if (n.newest_only) return from == 0 ? 0 : count;  // one slice, this shard's (load_floor)
    for (unsigned j = next_own(n.range, count, from); j < count; j = next_own(n.range, count, j + 1))
      if (!n.decision || !asleep(n, n.thread[j])) return j;
    return count;
  }

  // The next thread to explore at a thread choice: this shard's, not explored yet, in the
  // backtrack set (or any, above the shard split), not asleep; count if none.
  static unsigned next_thread_choice(const Node& n, unsigned count) {
    if (n.single) return count;
    for (unsigned j = next_own(n.range, count, 0); j < count; j = next_own(n.range, count, j + 1))
      if (to_explore(n, j)) return j;
    return count;
  }
  // Choice j of a thread choice is still to explore: not explored, in the backtrack set (or any,
  // above the shard split), not asleep.
  static bool to_explore(const Node& n, unsigned j) {
    const Threads t = bit(n.thread[j]);
    return !(n.explored & t) && (n.full || (n.backtrack & t)) && !asleep(n, n.thread[j]);
  }

  // The first child index >= from whose subtree is (also) this shard's; count if none.
  static unsigned next_own(ShardRange r, unsigned count, unsigned from) {
    if (r.hi - r.lo == 1) return from;  // the subtree is one slice, this shard's
    for (unsigned j = from; j < count; j++)
      if (child_range(r, count, j).has(g_shard.index, g_shard.count)) return j;
    return count;
  }

  static bool entries_have(const Entries& es, rl::thread_id_t th) {
    for (const Entry& e : es)
      if (e.thread == th) return true;
    return false;
  }

  // A step of thread th begins: chosen at a decision node (asleep are then the node's sleepers
  // and the choices already explored there, until a step they conflict with runs), at a node
  // explored in full, or by no choice at all (th was the only thread that could run).
  void begin_step(rl::thread_id_t th) {
    if (follow_pos_ < follow_.size()) {
      if (follow_[follow_pos_] == th) follow_pos_++;
      else follow_.clear(), follow_pos_ = 0;  // the run left the guide: free choices from here
    }
    Step s;
    s.thread = th;
    s.chosen = choice_depth_ < 0 ? Chosen::forced : choice_decision_ ? Chosen::decision : Chosen::every;
    s.node = choice_depth_;
    s.objects_begin = s.objects_end = 0;
    s.global = false;
    s.open_wait = false;
    s.completed_by = SIZE_MAX;
    s.knows = false;
    load_choice_ = false;
    s.enablers_begin = enablers_.size();
    for (size_t i = 0; i < pending_.size();)
      if (pending_[i].first == th) {
        enablers_.push_back(pending_[i].second);
        pending_[i] = pending_.back();
        pending_.pop_back();
      } else {
        i++;
      }
    s.enablers_end = enablers_.size();
    if (no_reduction_) {
      carried_.clear();
      std::fill_n(floor_, thread_count, 0);
    }
    floor_object_ = floor_[th];  // a floor holds for the thread's next step only
    floor_[th] = 0;
    floor_node_ = -1;
    if (s.chosen == Chosen::decision) {
      Node& n = node_[s.node];
      if (n.done.empty() || n.done.back().thread != th) n.done.push_back(Entry{th, Footprint()});
      n.done.back().touched.global = n.done.back().touched.global || n.apart;
      carried_ = n.sleep;
      // Where the tree splits into shards, this shard explored an earlier choice only in its own
      // slices: its footprint is not the union over all the choice's runs, and the runs its
      // sleep would leave to it may lie in another shard's slices, which that shard (exploring
      // in another order, after other races) may leave to this one. So no choice sleeps there.
      if (g_shard.count == 1 || n.range.hi - n.range.lo == 1)
        for (size_t i = 0; i + 1 < n.done.size(); i++)
          if (!n.done[i].elsewhere) carried_.push_back(n.done[i]);
    } else if (s.chosen == Chosen::forced && !sleep_blocked_ && entries_have(carried_, th)) {
      // The only thread that can run is asleep: as when every thread is asleep at a choice.
      sleep_blocked_ = true;
      if (blocked_at_ == SIZE_MAX) blocked_at_ = steps_.size();
    }
    for (rl::thread_id_t i = 0; i < thread_count; i++) block_count_[i] = this->threads_[i].block_count_;
    if (g_cpus.active) {
      cpu_before_ = cpu_state();
      cpu_gated_at_begin_ = cpu_gated_;
    }
    steps_.push_back(s);
    step_.clear();
    in_step_ = true;
  }

  // The step ends: its footprint is kept, joins its choice's, and the sleepers it conflicts with wake.
  void end_step() {
    if (!in_step_) return;
    in_step_ = false;
    const bool parked = g_history_reader->read(step_);
    if (g_cpus.active) add_cpu_footprint(steps_.back().thread);
    note_setup_reads(steps_.back().thread);
    const size_t k = steps_.size() - 1;
    Step& s = steps_.back();
    s.objects_begin = pool_.size();
    pool_.insert(pool_.end(), step_.objects.begin(), step_.objects.end());
    s.objects_end = pool_.size();
    s.global = step_.global;
    s.knows = step_.var || (step_.reads_plain() && !load_choice_);
    s.depth_end = this->stree_depth_;
    // A mutex's blocked attempt records what it reads (its acquisition order) before it parks;
    // the other objects record a wait only when it completes.
    s.open_wait = parked && !step_.has_tagged(Footprint::kLockOrder);
    if (s.chosen == Chosen::decision) {
      Entry& e = node_[s.node].done.back();
      e.touched.merge(step_);
      // Only a split reads it (become_worker): a search in one process leaves it unset.
      e.names_move = e.names_move || (work_stealing::active() && step_names_move());
    }
    const size_t prev = last_step_of_[s.thread];
    if (prev != SIZE_MAX && steps_[prev].open_wait && steps_[prev].completed_by == SIZE_MAX) complete_wait(prev, k);
    last_step_of_[s.thread] = k;
    // A wait whose object is not known yet may depend on any sleeper that touches a waitable object.
    const auto woken = [&](const Entry& e) {
      return e.thread == s.thread || e.touched.conflicts(step_) ||
             (s.open_wait && (e.touched.global || e.touched.has_tagged(Footprint::kWaitable)));
    };
    check_load_floor(s);
    set_load_floors(s, woken);
    // In place, keeping the order: the entries' storage is reused from step to step.
    carried_.erase(std::remove_if(carried_.begin(), carried_.end(), woken), carried_.end());
  }

  // The load floor (reads-from classes; tests/reduction/README.md, "The load floor"). A thread
  // asleep with a step that only loads object x is woken by a step of another thread that stores
  // to x once (W). If its next step then loads a store older than W (one that was there when it
  // went to sleep, or the one before it), that load moves back to where the thread fell asleep,
  // past steps none of which wrote x or touched the thread, with the same clocks and the same
  // stores to choose from: the run is equivalent to one that starts with the sleeper's step,
  // which the sleep set says is covered. So that load reads only the newest store: of Relacy's
  // two choices for a load (thread_info::get_load_index: the newest store, or the one before it),
  // the second is not explored. A later store to x before the thread's step cancels the floor
  // (the store before the newest is then W).
  template <class Woken>
  void set_load_floors(const Step& s, const Woken& woken) {
    for (rl::thread_id_t t = 0; t < thread_count; t++)
      if (floor_[t] && t != s.thread && step_.writes(floor_[t])) floor_[t] = 0;
    if (s.open_wait || step_.global || step_.rewrote) return;
    for (const Entry& e : carried_) {
      if (e.thread == s.thread || !woken(e)) continue;
      const uintptr_t x = e.touched.sole_read();
      if (x && step_.writes(x)) floor_[e.thread] = x;
    }
  }
  // A new choice of which store a load reads, in the step of a thread with a floor: only the
  // newest, if it is the step's own operation, the first to log anything (a load without a
  // choice may come first, then the test's after() with its own loads), and in one slice (a
  // shard's split needs every child).
  void load_floor(Node& node, size_t depth, unsigned limit) {
    if (!floor_object_ || floor_node_ >= 0 || !g_history_reader->nothing_new() || node.single || limit != 2 ||
        node.range.hi - node.range.lo != 1)
      return;
    node.newest_only = true;
    floor_node_ = (long)depth;
  }
  // The step with the pruned load ended: it must be the sleeper's, one load of x (the same
  // operation, as the thread had not run since), and read only; the test's after() adds its
  // loads to the run's last step. Otherwise the choice is explored again.
  void check_load_floor(const Step& s) {
    if (floor_node_ < 0) return;
    first_.clear();
    g_history_reader->first_touch(first_);
    bool reads_only = !step_.global && !s.open_wait;
    for (uintptr_t o : step_.objects) reads_only = reads_only && !(o & 1);
    if (reads_only && first_.sole_read() == floor_object_) g_floor_loads++;
    else node_[floor_node_].newest_only = false, g_floor_unkept++;
    floor_node_ = -1;
  }

  // Whether the step just ended touched an object that may lie at another address in another run
  // of the same steps, so that its footprint need not name what the step touches there: the
  // state of a mutex, an event or another waitable object whose primitive was not announced
  // (Relacy hands such states out from per-type free lists; model/rl_env.hpp). Announced ones are
  // named by their primitives, heap objects by their blocks (history_reader), the same in every
  // run. Global: it touches all anyway.
  bool step_names_move() const { return !step_.global && step_.moving; }

  // Step p parked in a wait that step c (its thread's next) completed: the blocked attempt was
  // the operation c finished, on the same object, so p touched what c touched. Without this p
  // would race with nothing, and the runs where a set or reset comes before the attempt (the
  // wait then succeeds at once, or never) would not be explored.
  void complete_wait(size_t p, size_t c) {
    Step& b = steps_[p];
    b.completed_by = c;
    merged_.clear();
    merged_.objects.assign(pool_.begin() + b.objects_begin, pool_.begin() + b.objects_end);
    merged_.merge(step_);  // c's, the step that just ended
    b.objects_begin = pool_.size();  // the old range is left unused
    pool_.insert(pool_.end(), merged_.objects.begin(), merged_.objects.end());
    b.objects_end = pool_.size();
    b.global = b.global || step_.global;
    b.knows = b.knows || steps_[c].knows;
    // Its choice's entry too: a thread asleep with it must wake at a step it conflicts with.
    if (b.chosen == Chosen::decision)
      for (Entry& e : node_[b.node].done)
        if (e.thread == b.thread) e.touched.merge(step_), e.names_move = true;
  }

  // After Relacy's scheduler ran: a thread whose block count the last step lowered (an unpark,
  // or a yield priority that step's scheduling released) can run next only after it. Such a
  // step precedes the unblocked thread's next step (it is no race: the order cannot be swapped).
  void note_enabled() {
    if (steps_.empty()) return;
    const size_t last = steps_.size() - 1;
    for (rl::thread_id_t i = 0; i < thread_count; i++) {
      if (i == steps_[last].thread) continue;
      // Kept off its CPU or let back on (cpu_gate) is neither: the step that changed the CPU's
      // state orders, or races with, the task's next step through the CPU's pseudo-objects.
      const unsigned now = real_block_count(i), before = real_block_count_at_begin(i);
      if (now < before) pending_.push_back({i, last});
      if (now > before) steps_[last].global = true;  // another thread blocked: not expected
    }
  }

  // Whether two steps conflict: not at all, only through a release (ordered, no race), or in a
  // race; with fences false, as if seq_cst fences did not order against each other.
  enum class Conflict { none, order, race };
  Conflict conflict(const Step& a, const Step& b, bool fences = true) const {
    if (a.global || b.global) return Conflict::race;
    Conflict c = Conflict::none;
    for (size_t x = a.objects_begin; x < a.objects_end; x++)
      for (size_t y = b.objects_begin; y < b.objects_end; y++)
        if (pool_[x] >> 1 == pool_[y] >> 1 && ((pool_[x] | pool_[y]) & 1) && (fences || pool_[x] >> 1 != kSeqCstOrder)) {
          if (!(pool_[x] & Footprint::kRelease)) return Conflict::race;
          c = Conflict::order;
        }
    return c;
  }
  // Whether two steps touch some object in common, read or written, besides the fences' order
  // (two loads among them too, though they commute: more than needed; read-read coherence is
  // a knowing step's, looked at through touches()).
  bool touch_common(const Step& a, const Step& b) const {
    if (a.global || b.global) return true;
    for (size_t x = a.objects_begin; x < a.objects_end; x++)
      for (size_t y = b.objects_begin; y < b.objects_end; y++)
        if (pool_[x] >> 1 == pool_[y] >> 1 && pool_[x] >> 1 != kSeqCstOrder) return true;
    return false;
  }

  // What made two racing steps race (for the figures only): a global step, the seq_cst fence
  // order, or the first object both touch, written by both or by one.
  RaceKind race_kind(const Step& a, const Step& b) const {
    if (a.global || b.global) return race_global_step;
    for (size_t x = a.objects_begin; x < a.objects_end; x++)
      for (size_t y = b.objects_begin; y < b.objects_end; y++)
        if (pool_[x] >> 1 == pool_[y] >> 1 && ((pool_[x] | pool_[y]) & 1) && !(pool_[x] & Footprint::kRelease)) {
          if (pool_[x] >> 1 == kSeqCstOrder) return race_fence_order;
          return (pool_[x] & pool_[y] & 1) ? race_write_write : race_read_write;
        }
    return race_read_write;
  }

  // A lock races with the previous lock of its mutex by another thread, even though that
  // holder's unlock orders the two: reversing them is what changes the acquisition order.
  // A lock whose thread waited for that unlock is left to the race of its blocked attempt.
  void add_lock_races(size_t from, size_t m) {
    last_lock_.clear();
    for (size_t j = 0; j < m; j++)
      for (size_t x = steps_[j].objects_begin; x < steps_[j].objects_end; x++) {
        const uintptr_t k = pool_[x];
        if (!(k & Footprint::kLockOrder) || !(k & 1)) continue;
        auto last = std::find_if(last_lock_.begin(), last_lock_.end(), [&](const auto& e) { return e.first == k; });
        if (last == last_lock_.end()) {
          last_lock_.push_back({k, j});
          continue;
        }
        // Unless something other than the releases orders them: then j could not come first. A
        // CPU's (add_cpu_footprint) is reversed whatever orders them: a task kept off its CPU
        // makes no attempt (a mutex's waiter does), so the race of j with a step after i may be
        // one its reversal cannot undo (j's thread could not run there).
        const size_t i = last->second;
        const uintptr_t object = (k & ~Footprint::kTags) >> 1;
        const bool cpu = object >= kCpuExclusive && object < kCpuExclusive + 32;
        if (j >= from && steps_[i].thread != steps_[j].thread &&
            (cpu || lock_clocks_[j * thread_count + steps_[i].thread] < (long)i))
          races_.push_back({i, j, race_lock_order});
        last->second = j;
      }
  }

  // Source-DPOR (Abdulla et al. 2014, Algorithm 1), on the iteration that just ended: for each
  // race, two conflicting steps i < j of different threads with no step ordered between them,
  // a thread that can start the reversed order (an initial of notdep(i).j) joins the backtrack
  // set of the thread choice that chose i, unless one of them is already there.
  void add_backtracks() {
    const size_t m = std::min(steps_.size(), blocked_at_);
    // The steps this iteration repeats from the last one, and their races, were analysed then
    // (adding a backtrack again changes nothing): only the races of the steps after them are new.
    const size_t from = std::min(reused_, m);
    analysed_ = m;
    // The fence races of the steps analysed again are found again; those of a step left behind
    // were never used: every run below it has been explored.
    for (size_t p = 0; p < fences_pending_.size();)
      if (fences_pending_[p].j >= from) {
        g_fence_races_unused++;
        fences_pending_[p] = fences_pending_.back(), fences_pending_.pop_back();
      } else {
        p++;
      }
    if (m == 0) return;
    clocks_.resize(m * thread_count);
    lock_clocks_.resize(m * thread_count);
    plain_clocks_.resize(m * thread_count);
    races_.clear();
    for (rl::thread_id_t t = 0; t < thread_count; t++)
      while (!steps_of_[t].empty() && steps_of_[t].back() >= from) steps_of_[t].pop_back();
    for (size_t j = from; j < m; j++) {
      long* cj = &clocks_[j * thread_count];
      long* lj = &lock_clocks_[j * thread_count];
      const Step& sj = steps_[j];
      start_clock(cj, sj, clocks_);
      start_clock(lj, sj, lock_clocks_);
      // Each earlier step not ordered before j that conflicts with j races with it, and orders before it.
      each_unordered(sj, cj, [&](size_t i) {
        const Conflict c = conflict(steps_[i], sj);
        if (c == Conflict::none) return;
        if (c == Conflict::race) {
          // Two seq_cst fences and nothing else: reversed once some later step may tell their
          // order apart (fences_used).
          if (conflict(steps_[i], sj, false) == Conflict::none) fences_pending_.push_back({i, j, race_fence_order});
          else races_.push_back({i, j, race_kind(steps_[i], sj)});
          join(lj, i, lock_clocks_);
        }
        join(cj, i);
      });
      cj[sj.thread] = lj[sj.thread] = (long)j;
      fences_used(j);
      steps_of_[sj.thread].push_back(j);
    }
    add_lock_races(from, m);
    for (const Race& r : races_) reverse_race(r.i, r.j, r.kind);
  }

  // The order of two racing seq_cst fences i < j (of threads A and B, touching nothing else in
  // common) puts what A's side knew at i (Relacy's clocks) into what B's side knows from j on,
  // and orders the steps up to i before those from j. Reversed, the fences put B's side's
  // knowledge into A's side's instead, which only restricts A's side further. So the reversal
  // can add a run only at a step l from j on (j's own step too: a variable's access is no
  // scheduling point, so what B runs after its fence is part of j; and any step j orders before
  // it), or at a yield there, and only through an object l touches that a step s up to i
  // touched: if l knows (Step::knows: a variable's access, or a load that had no choice of
  // store), whatever orders s before l, as an order of steps is no synchronisation; else if
  // nothing but the fences' order puts s before l (plain_clocks_), as reversed they may swap.
  // Until such an l shows up, the race waits in fences_pending_, across iterations while j is
  // on the path: every step analysed later below j is looked at.
  // tests/reduction/README.md, "Why no outcome is lost", gives the argument.
  void fences_used(size_t l) {
    const Step& sl = steps_[l];
    long* pl = &plain_clocks_[l * thread_count];
    start_clock(pl, sl, plain_clocks_);
    // The steps of other threads that touch an object l touches and that nothing but the
    // fences' order puts before l.
    unordered_.clear();
    each_unordered(sl, pl, [&](size_t k) {
      if (!fences_pending_.empty() && !sl.knows && touch_common(steps_[k], sl)) unordered_.push_back(k);
      if (conflict(steps_[k], sl, false) != Conflict::none) join(pl, k, plain_clocks_);
    });
    pl[sl.thread] = (long)l;
    // A step whose outcome depends on what its thread knows: a step of another thread counts,
    // ordered before it or not (an order of steps is no synchronisation: Relacy's clocks grow
    // only through what synchronises), if it is the last to write an object l touches or
    // touched it since. Knowing nothing older changes anything: a load reads the newest store or
    // the one before it, ruled out by knowing the newest or a load of it (get_load_index); a
    // variable's access races with its last store and the loads since.
    if (!fences_pending_.empty() && sl.knows)
      for (size_t x = sl.objects_begin; x < sl.objects_end; x++) {
        const uintptr_t o = pool_[x] >> 1;
        if (o == kSeqCstOrder) continue;
        for (size_t k = l; k-- > 0;) {
          const int touch = touches(steps_[k], o);
          if (touch && steps_[k].thread != sl.thread) unordered_.push_back(k);
          if (touch == 2) break;
        }
      }
    for (size_t p = 0; p < fences_pending_.size();) {
      const Race& r = fences_pending_[p];
      // l is j itself too: what j's thread runs after its fence, up to its next step, is a step's
      // (a variable's access is no scheduling point).
      const bool after_j = r.j == l || before(r.j, l);
      bool used = after_j && sl.global;
      if (after_j)
        for (size_t x = 0; x < unordered_.size() && !used; x++) used = before_or(unordered_[x], r.i);
      if (!used) {
        p++;
        continue;
      }
      races_.push_back(r);
      fences_pending_[p] = fences_pending_.back();
      fences_pending_.pop_back();
    }
  }
  bool before_or(size_t a, size_t b) const { return a == b || before(a, b); }

  // A step's clock in one of the orders (clocks_, lock_clocks_, plain_clocks_) before its own
  // conflicts are joined: its thread's previous step's, and the steps that enabled it.
  void start_clock(long* c, const Step& s, const typename rl::vector<long>::type& clocks) {
    if (!steps_of_[s.thread].empty()) std::copy_n(&clocks[steps_of_[s.thread].back() * thread_count], thread_count, c);
    else std::fill_n(c, thread_count, -1);
    for (size_t e = s.enablers_begin; e < s.enablers_end; e++) join(c, enablers_[e], clocks);
  }
  // Visits the earlier steps of threads other than s's that clock c does not order before it,
  // latest first (a merge of the threads' lists of steps). The visit may join into c: what the
  // joined step orders before it is then skipped.
  template <class Visit>
  void each_unordered(const Step& s, const long* c, Visit visit) {
    size_t pos[thread_count];
    for (rl::thread_id_t t = 0; t < thread_count; t++) pos[t] = steps_of_[t].size();
    for (;;) {
      long i = -1;
      rl::thread_id_t ti = 0;
      for (rl::thread_id_t t = 0; t < thread_count; t++)
        if (t != s.thread && pos[t] != 0 && (long)steps_of_[t][pos[t] - 1] > std::max(c[t], i))
          i = (long)steps_of_[t][pos[t] - 1], ti = t;
      if (i < 0) return;
      pos[ti]--;
      visit((size_t)i);
    }
  }
  // How step s touched object o: 0 not at all, 1 read only (or a global step: everything, as
  // neither a read nor a write here), 2 wrote it.
  int touches(const Step& s, uintptr_t o) const {
    for (size_t x = s.objects_begin; x < s.objects_end; x++)
      if (pool_[x] >> 1 == o) return (pool_[x] & 1) ? 2 : 1;
    return s.global ? 1 : 0;
  }

  void join(long* c, size_t i) { join(c, i, clocks_); }
  void join(long* c, size_t i, const typename rl::vector<long>::type& clocks) {
    const long* ci = &clocks[i * thread_count];
    for (rl::thread_id_t t = 0; t < thread_count; t++) c[t] = std::max(c[t], ci[t]);
    c[steps_[i].thread] = std::max(c[steps_[i].thread], (long)i);
  }
  bool before(size_t a, size_t b) const { return clocks_[b * thread_count + steps_[a].thread] >= (long)a; }

  void reverse_race(size_t i, size_t j, RaceKind kind) {
    const Step& si = steps_[i];
    if (si.chosen == Chosen::every) return;  // every thread is explored there
    // v = notdep(i).j: the steps after i not ordered after it, then j; its initials are the
    // threads whose first step in v has no step of v ordered before it.
    Threads initials = 0, seen = 0;
    v_.clear();
    for (size_t k = i + 1; k <= j; k++) {
      if (k != j && before(i, k)) continue;
      const Threads t = bit(steps_[k].thread);
      if (!(seen & t)) {
        seen |= t;
        bool first = true;
        for (size_t x = 0; x < v_.size() && first; x++)
          if (before(v_[x], k)) first = false;
        if (first) initials |= t;
      }
      v_.push_back(k);
    }
    if (si.chosen == Chosen::forced) return fall_back(i);  // no other thread could run there
    Node& n = node_[si.node];
    if (n.single || (initials & (n.backtrack | n.explored))) return;
    // At a node processes of a work-stealing search share: an initial another one claimed
    // there is explored by it, which answers the race as one in the backtrack set here would.
    if (n.shared)
      for (rl::thread_id_t t = 0; t < thread_count; t++)
        if ((initials & bit(t)) && is_claimed(si.node, t)) {
          n.explored |= bit(t);
          return;
        }
    // A thread asleep at the node that starts v: every run v starts is equivalent to one that
    // starts with that thread's step (it commutes to the front), which the sleeper covers.
    // Source-DPOR may add any initial, an asleep one too, which explores nothing.
    for (const Entry& e : n.sleep)
      if (initials & bit(e.thread)) return;
    Threads enabled = 0, awake = 0;
    for (unsigned x = 0; x < this->stree_[si.node].count_; x++) {
      enabled |= bit(n.thread[x]);
      if (!asleep(n, n.thread[x])) awake |= bit(n.thread[x]);
    }
    const Threads can = initials & enabled;
    if (!can) return fall_back(i);
    const Threads pick = (can & awake) ? (can & awake) : can;
    const Threads had = n.backtrack;
    n.backtrack |= pick & (~pick + 1);  // the lowest such thread
    if (n.backtrack == had) return;
    g_backtracks[kind]++;
    // The new branch first follows v, the added thread's first step moved to its front (it has
    // no step of v before it): the runs it then reaches are the reversed race's, not ones that
    // the sleepers at the node make redundant.
    rl::thread_id_t p = 0;
    while (!((n.backtrack & ~had) & bit(p))) p++;
    Guide g;
    g.push_back((uint8_t)p);
    bool moved = false;
    for (size_t k : v_) {
      const rl::thread_id_t t = steps_[k].thread;
      if (t == p && !moved) moved = true;
      else g.push_back((uint8_t)t);
    }
    n.guides.push_back(std::move(g));
  }

  // The thread chosen first runs the scenario's set-up (before()): Relacy counts the initial
  // values as seen by it, and after a yield or a park a thread reads no value older than one it
  // had seen before (thread_info::get_load_index, last_yield_). So the set-up thread, once it
  // has yielded or parked, cannot read an initial value another thread has since overwritten,
  // where any other thread can: which thread is chosen first changes what loads may read, though
  // no thread's first step touches shared state (Relacy schedules before each operation). Plain
  // search chooses every thread first. Here, once a run shows such a load after a yield
  // (note_setup_reads), every thread is chosen first, and none is asleep there: each first
  // thread's subtree is its own search, as plain search's are. After a park (Relacy's park is a
  // yield too) the same holds, and is not done: a parked thread sleeps in nearly every
  // rw_semaphore scenario, and choosing every thread first there doubles to triples their
  // searches (rwsem_readers_writer 149,665 -> 448,992). The runs so left out, in which the set-up
  // thread after a park reads an initial value that one other thread has overwritten without
  // synchronising with it, are a limit of the reduction (tests/reduction/README.md).
  //
  // Whether the step just ended (of thread th) is a load that the choice of the set-up thread can
  // change: a load by the set-up thread, after it yielded, of an object written once
  // since the set-up, by another thread, and which it had not loaded before it yielded.
  // (The record before the newest is then the initial one, which only the set-up thread counts
  // as seen; with two writes since, it is a write no thread has seen unless it loaded it,
  // whichever ran the set-up; and any thread that loaded the object before it yielded has seen
  // whatever it read.) A step of a thread is one operation
  // (Relacy schedules before each), so a read in it is a plain load, counted against the writes
  // of the steps before it.
  void note_setup_reads(rl::thread_id_t th) {
    for (uintptr_t o : step_.objects) {
      if (o & Footprint::kTags) continue;
      const uintptr_t object = o >> 1;
      if (object < kPseudoObjectsEnd) continue;  // no load
      if (std::find(rewritten_.begin(), rewritten_.end(), object) != rewritten_.end()) continue;
      auto w = std::find_if(writes_.begin(), writes_.end(), [&](const auto& e) { return e.first == object; });
      if (!(o & 1)) {
        if (th == setup_thread_ && setup_thread_saw_yield_ && w != writes_.end() && w->second != th &&
            std::find(setup_loaded_before_yield_.begin(), setup_loaded_before_yield_.end(), object) ==
                setup_loaded_before_yield_.end())
          setup_read_stale_ = true;
        if (th == setup_thread_ && std::find(setup_loaded_.begin(), setup_loaded_.end(), object) == setup_loaded_.end())
          setup_loaded_.push_back(object);
      } else if (w == writes_.end()) {
        writes_.push_back({object, th});
      } else {
        rewritten_.push_back(object);
      }
    }
  }

  void setup_matters() {
    if (node_.empty() || !node_[0].decision || (node_[0].full && node_[0].apart)) return;
    if (node_[0].shared) {  // split: the other processes keep the sleepers (g_setup_after_split)
      g_setup_after_split = true;
      work_stealing::stop_all();
      return;
    }
    node_[0].full = true;
    no_sleep_at_root();
  }

  // The exploration below a node chosen from its backtrack set follows that thread's guide.
  void follow_guide(const Node& n, rl::thread_id_t th) {
    guide_node_ = -1;
    follow_.clear();
    follow_pos_ = 0;
    for (const Guide& g : n.guides)
      if (g[0] == th) {
        follow_.assign(g.begin(), g.end());
        return;
      }
  }

  // At a new thread choice: the guide's next thread if it may run here (not asleep, this
  // shard's), else the default first and no guide from here on.
  unsigned guided_choice(const Node& node, unsigned limit, unsigned first) {
    for (unsigned j = 0; j < limit; j++)
      if (node.thread[j] == follow_[follow_pos_]) {
        if (next_choice(node, limit, j) == j) return j;
        break;
      }
    follow_.clear();
    follow_pos_ = 0;
    return first;
  }

  // A race the reduction cannot place: every thread choice up to step i explores every thread.
  void fall_back(size_t i) {
    g_reduction_fallbacks++;
    for (size_t k = 0; k <= i; k++)
      if (steps_[k].chosen == Chosen::decision) node_[steps_[k].node].full = true;
  }

  // Work-stealing (verify/search/work_stealing.hpp): a worker's place is free and the next
  // iteration leaves the path at node d. The shallowest thread choice k <= d with threads still
  // to explore besides the one the path takes there gives them all to a new process, forked
  // here with this whole state: the worker explores them, this process drops them (marked
  // explored: a race asking for one of them is answered, by the worker).
  //
  // What stays sound (tests/reduction/README.md, "Work-stealing"): a choice sleeps where its
  // entry names every object its step touches in any run: the union over all its runs, or, for
  // a step that touched only objects whose address is the same in every run (!names_move), its
  // runs so far (the step repeats the same operation on the same state). The choices given away
  // never sleep here (they have no entry). In the worker, the path's own choice at each node up
  // to k is this process's, still being explored: it sleeps in the worker only if its names do
  // not move. The first thread choice (which task runs the set-up) keeps its sleepers: should
  // setup_matters find after a split that none may sleep there, the search is run again in one
  // process (g_setup_after_split).
  // Races found later at nodes above the split are reversed by whichever process found them
  // first: a thread added there is claimed, and one another process claimed answers the race.
  void split(size_t d) {
    if (no_reduction_ || g_shard.count != 1 || g_cpus.active) return;
    for (size_t k = 0; k <= d; k++) {
      Node& nd = node_[k];
      auto& sn = this->stree_[k];
      if (!nd.decision || nd.single) continue;
      Threads give = 0;
      for (unsigned j = 0; j < sn.count_; j++)
        if (j != sn.index_ && to_explore(nd, j)) give |= bit(nd.thread[j]);
      if (!give) continue;
      const pid_t pid = work_stealing::fork_worker();
      if (pid < 0) return;
      // The nodes on the way to the split become shared: a choice one process adds there later
      // is claimed, not explored twice. The worker's choices are claimed for it by its parent
      // (claimed before the fork, they would be lost if it failed).
      for (size_t m = 0; m <= k; m++) node_[m].shared = node_[m].decision;
      if (pid > 0) {
        for (unsigned j = 0; j < sn.count_; j++)
          if (give & bit(nd.thread[j])) claim(k, nd.thread[j]);
        nd.explored |= give;
        return;
      }
      become_worker(k, d, give);
      return;
    }
  }

  // In the new worker: explore the threads `give` at node k, nothing else below the path above it.
  void become_worker(size_t k, size_t d, Threads give) {
    for (size_t m = 0; m <= k && m < d; m++) {
      const rl::thread_id_t th = node_[m].thread[this->stree_[m].index_];
      if (node_[m].decision && !node_[m].done.empty() && node_[m].done.back().thread == th)
        node_[m].done.back().elsewhere = node_[m].done.back().names_move;
    }
    Node& nd = node_[k];
    auto& sn = this->stree_[k];
    nd.explored |= bit(nd.thread[sn.index_]);  // the path's choice: the parent's
    nd.explored &= ~give;
    nd.backtrack |= give;
    // Its parent claimed them for it: its own claims of them, after the first, would fail. The
    // choices given to the parent at nodes above stay the parent's.
    for (size_t m = 0; m < k; m++) node_[m].given = 0;
    nd.given = give;
    unsigned first = 0;
    while (!(give & bit(nd.thread[first]))) first++;
    this->stree_.resize(k + 1);
    node_.resize(k + 1);
    sn.index_ = first;
    own_depth_ = (long)k;
    guide_node_ = (long)k;
    reused_ = steps_before(k);
  }

  // Claims thread th's choice at node m (work_stealing::claim), keyed by the path from the root
  // to it (each node's choice, options and kind), hashed two ways into 128 bits.
  bool claim(size_t m, rl::thread_id_t th) { return claim_key(m, th, true); }
  bool is_claimed(size_t m, rl::thread_id_t th) { return !claim_key(m, th, false); }
  // claim (insert) or look up: whether this process may explore the choice (not claimed before).
  bool claim_key(size_t m, rl::thread_id_t th, bool insert) {
    uint64_t a = 1469598103934665603ULL, b = 0x9e3779b97f4a7c15ULL;
    auto mix = [&](uint64_t v) {
      a = (a ^ v) * 1099511628211ULL;
      b = (b ^ v) * 0xff51afd7ed558ccdULL;
      b ^= b >> 33;
    };
    for (size_t i = 0; i < m; i++) {
      mix(this->stree_[i].index_);
      mix((uint64_t)this->stree_[i].count_ << 8 | (uint64_t)this->stree_[i].type_);
    }
    mix(0xffff0000u | th);
    return insert ? work_stealing::claim(a, b) : !work_stealing::claimed(a, b);
  }

  // The first thread choice puts no choice to sleep (setup_matters).
  void no_sleep_at_root() {
    if (node_.empty() || !node_[0].decision) return;
    node_[0].apart = true;
    for (Entry& e : node_[0].done) e.touched.global = true;
  }
};

}  // namespace exploration
