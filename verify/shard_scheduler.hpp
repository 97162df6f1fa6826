// vmaverify's full search: Relacy's own depth-first tree search (rl::tree_search_scheduler,
// relacy/full_search_scheduler.hpp), restricted to one shard of the search tree and, when
// asked, pruned by sleep sets (README, "The reduction"). Only the choice of the next index at
// each decision node is ours; scheduling, yields, timed and spurious wake-ups are Relacy's.
// With one shard and no reduction it explores exactly what rl::full_search_scheduler explores,
// in the same order; its paths are Relacy's search states, replayed by Relacy's own scheduler.
#pragma once
#include "model/rl_env.hpp"
#include "verify/step_footprint.hpp"

namespace exploration {

// Which shard of the full-search tree to explore: index in [0, count).
// The tree is split into `slices` slices (a multiple of count), slice v going to shard v mod
// count, so that a skewed split (one subtree far larger than its sibling) still spreads evenly.
struct ShardPlan {
  unsigned index = 0, count = 1, slices = 1;
};
extern ShardPlan g_shard;
// Iterations this process ran but does not own (a leaf reached before the tree split far
// enough to give it one owner): run by several shards, counted by its owner only.
extern uint64_t g_foreign_iterations;
// Sleep-set reduction on; the footprints of the steps come from this tap on Relacy's history.
extern bool g_reduce;
extern history_tap* g_history_tap;
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
 public:
  typedef rl::tree_search_scheduler<shard_scheduler<thread_count>, rl::tree_search_scheduler_thread_info<thread_count>,
                                    thread_count>
      base_t;
  typedef typename base_t::thread_info_t thread_info_t;
  typedef typename base_t::shared_context_t shared_context_t;

  shard_scheduler(rl::test_params& params, shared_context_t& ctx, rl::thread_id_t dynamic_thread_count)
      : base_t(params, ctx, dynamic_thread_count) {
    if (g_reduce && g_history_tap) g_history_tap->target = &step_;
  }

  ~shard_scheduler() {
    if (g_reduce && g_history_tap) g_history_tap->target = nullptr;
    if (this->params_.test_result == rl::test_result_success) return;
    std::basic_ostringstream<char, std::char_traits<char>, rl::raw_allocator<char>> ss;
    ss << this->params_.stop_iteration << " ";
    this->get_state_impl(ss);
    g_failure_state = ss.str();
  }

  // As tree_search_scheduler's, but through our rand_impl.
  rl::thread_id_t iteration_begin_impl() {
    this->stree_depth_ = 0;
    step_.clear();
    step_node_ = -1;
    sleep_blocked_ = false;
    carried_.clear();
    no_reduction_ = !g_reduce || this->total_dynamic_threads_ != 0;
    unsigned const index = rand_impl(this->running_threads_count, rl::sched_type_sched);
    return this->running_threads[index];
  }

  // Relacy's backtracking (the deepest node with a next choice), skipping other shards' choices
  // and threads asleep at that node.
  bool iteration_end_impl() {
    RL_VERIFY(this->stree_depth_ == this->stree_.size());
    end_step();
    const ShardRange leaf = this->stree_.empty() ? root()
                                                 : child_range(node_.back().range, this->stree_.back().count_,
                                                               this->stree_.back().index_);
    if (leaf.lo % g_shard.count != g_shard.index) g_foreign_iterations++;
    for (size_t i = this->stree_.size(); i != 0; --i) {
      auto& n = this->stree_[i - 1];
      const unsigned next = next_choice(node_[i - 1], n.count_, n.index_ + 1);
      if (next < n.count_) {
        this->stree_.resize(i);
        node_.resize(i);
        n.index_ = next;
        return false;
      }
    }
    return true;
  }

  // As tree_search_scheduler's: replay the recorded path, else open a node at its first choice.
  unsigned rand_impl(unsigned limit, rl::sched_type t) {
    const size_t depth = this->stree_depth_++;
    const bool decision = t == rl::sched_type_sched && !no_reduction_;
    if (decision) end_step();  // the step chosen at the last decision ends here
    if (depth == this->stree_.size()) {
      Node node;
      node.range = depth == 0 ? root()
                              : child_range(node_[depth - 1].range, this->stree_[depth - 1].count_,
                                            this->stree_[depth - 1].index_);
      node.decision = decision;
      node.single = sleep_blocked_;
      if (decision) {
        for (unsigned j = 0; j < limit; j++) node.thread[j] = this->running_threads[j];
        node.sleep = carried_;
      }
      unsigned first = next_choice(node, limit, 0);
      if (first == limit && decision) {
        // Every thread that may run here is asleep: every run from here is equivalent to one
        // explored elsewhere. The iteration must still end: one path, no alternatives below.
        sleep_blocked_ = node.single = true;
        node.sleep.clear();
        first = next_choice(node, limit, 0);
      }
      RL_VERIFY(first < limit);  // the children's ranges cover r, which has a slice of this shard
      typename base_t::stree_node n = {limit, first, t, 0};
      this->stree_.push_back(n);
      node_.push_back(node);
      if (decision) begin_step(depth);
      return first;
    }
    auto& n = this->stree_[depth];
    // A node that differs from the recorded one: the test is not deterministic (Relacy's own check).
    RL_VERIFY(n.type_ == t);
    RL_VERIFY(n.count_ == limit);
    RL_VERIFY(n.index_ < n.count_);
    RL_VERIFY(node_[depth].decision == decision);  // the same path decides the same way
    if (decision) begin_step(depth);
    return n.index_;
  }

  // Relacy's, but noting what the reduction does not reason about: a yield (it reorders other
  // threads' priorities), a timed or spuriously waking waiter (woken by a choice that is not a
  // thread choice), and a switch no decision made (the thread ran alone until it blocked or
  // ended): any of these turns the reduction off for the rest of the iteration, or for the step.
  rl::thread_id_t schedule_impl(rl::unpark_reason& reason, unsigned yield) {
    if (yield || this->timed_thread_count_ || this->spurious_thread_count_) no_reduction_ = true;
    const size_t before = this->stree_depth_;
    const rl::thread_id_t th = base_t::schedule_impl(reason, yield);
    if (th != this->thread_->index_ && this->stree_depth_ == before) step_.global = true;
    if (no_reduction_) step_.global = true;
    return th;
  }

  bool can_switch(thread_info_t&) { return true; }
  void on_switch(thread_info_t&) {}

  double iteration_count_approx() {
    double total = 1;
    for (size_t i = 0; i != this->stree_.size(); ++i) total *= this->stree_[i].count_;
    return total;
  }

 private:
  // A thread whose next step is known to lead only where the search has been (asleep), or a
  // thread choice explored at a node: the thread and what its step touched.
  struct Entry {
    rl::thread_id_t thread;
    Footprint touched;
  };
  typedef typename rl::vector<Entry>::type Entries;
  struct Node {
    ShardRange range;        // the slices of this node's subtree
    bool decision = false;   // a thread choice where the reduction applies
    bool single = false;     // below a state where every thread was asleep: no alternatives
    rl::thread_id_t thread[thread_count];  // decision: the thread of each choice
    Entries sleep;           // decision: asleep on arrival
    Entries done;            // decision: each choice taken, with the union of its steps' footprints
  };
  typename rl::vector<Node>::type node_;  // parallel to stree_

  Footprint step_;          // what the current step has touched so far (filled by the history tap)
  long step_node_ = -1;     // the decision node that chose the current step
  Entries carried_;         // asleep when the current step ends, before filtering by it
  bool sleep_blocked_ = false, no_reduction_ = true;

  static ShardRange root() { return {0, g_shard.slices}; }

  static bool asleep(const Node& n, rl::thread_id_t th) {
    for (const Entry& e : n.sleep)
      if (e.thread == th) return true;
    return false;
  }

  // The first choice >= from that this shard explores at the node; count if none.
  static unsigned next_choice(const Node& n, unsigned count, unsigned from) {
    if (n.single) return from == 0 ? next_own(n.range, count, 0) : count;
    for (unsigned j = next_own(n.range, count, from); j < count; j = next_own(n.range, count, j + 1))
      if (!n.decision || !asleep(n, n.thread[j])) return j;
    return count;
  }

  // The first child index >= from whose subtree is (also) this shard's; count if none.
  static unsigned next_own(ShardRange r, unsigned count, unsigned from) {
    if (r.hi - r.lo == 1) return from;  // the subtree is one slice, this shard's
    for (unsigned j = from; j < count; j++)
      if (child_range(r, count, j).has(g_shard.index, g_shard.count)) return j;
    return count;
  }

  // Decision node d chose this step: asleep are the node's sleepers and the choices already
  // explored there (their subtrees are done), until a step they conflict with runs.
  void begin_step(size_t d) {
    Node& n = node_[d];
    const rl::thread_id_t th = n.thread[this->stree_[d].index_];
    if (n.done.empty() || n.done.back().thread != th) n.done.push_back(Entry{th, Footprint()});
    carried_ = n.sleep;
    for (size_t i = 0; i + 1 < n.done.size(); i++) carried_.push_back(n.done[i]);
    step_node_ = (long)d;
    step_.clear();
  }

  // The step ends: its footprint joins its choice's, and the sleepers it conflicts with wake.
  void end_step() {
    if (step_node_ < 0) return;
    Node& n = node_[step_node_];
    const rl::thread_id_t th = n.thread[this->stree_[step_node_].index_];
    n.done.back().touched.merge(step_);
    Entries still;
    for (const Entry& e : carried_)
      if (e.thread != th && !e.touched.conflicts(step_)) still.push_back(e);
    carried_ = still;
    step_node_ = -1;
  }
};

}  // namespace exploration
