// The reduction (verify/search/shard_scheduler.hpp: source-DPOR with sleep sets) on small Relacy tests
// of its own, each run under plain full search and reduced: the reduced search must reach every
// outcome that plain search reaches (a bit per outcome, recorded at the end of each iteration),
// find the same failures, never fall back, and explore fewer iterations where steps commute.
#include <gtest/gtest.h>
#include <cstdint>
#include <ostream>
#include "verify/search/explore.hpp"
// Relacy defines new and delete as macros (its heap during iterations); GoogleTest's TEST
// registration needs the keywords, outside any iteration.
#undef new
#undef delete

namespace {

uint64_t g_iterations = 0;  // iterations begun
uint64_t g_seen = 0;        // outcomes reached, one bit each

void begin_iteration() {
  g_iterations++;
  // The set-up belongs to no thread's step (as in exploration::iteration_begin).
  if (exploration::g_history_reader) exploration::g_history_reader->skip();
}
void seen(unsigned outcome) { g_seen |= uint64_t(1) << outcome; }

struct Outcome {
  rl::test_result_e result;
  uint64_t iterations, seen, fallbacks;
};

// One full search of Suite through vmaverify's scheduler, reduced or not, as shard/shards; with
// twin_of, thread 1 is thread 0's twin (symmetry).
template <class Suite>
Outcome search(bool reduce, unsigned shard = 0, unsigned shards = 1, bool twins = false) {
  exploration::history_reader reader;
  std::ostream dropped(nullptr);
  rl::ostringstream out;
  rl::test_params p;
  p.search_type = rl::sched_full;
  p.output_stream = &out;
  p.progress_stream = &out;
  if (reduce) {
    p.output_stream = &dropped;
    p.collect_history = true;
  }
  exploration::g_shard = {shard, shards, shards * 16};
  exploration::g_foreign_iterations = 0;
  exploration::g_reduction_fallbacks = 0;
  exploration::g_reduce = reduce;
  exploration::g_history_reader = reduce ? &reader : nullptr;
  g_iterations = g_seen = 0;
  exploration::g_twin_misuse = false;
  if (twins) exploration::g_twin_of[1] = 0;
  std::string state;
  const rl::test_result_e r = exploration::run_with<Suite>(p, &state);  // the product's way in
  exploration::g_reduce = false;
  exploration::g_history_reader = nullptr;
  exploration::g_shard = {0, 1, 1};
  exploration::g_twin_of[1] = -1;
  return {r, g_iterations - exploration::g_foreign_iterations, g_seen, exploration::g_reduction_fallbacks};
}

// Three threads, each storing to its own atomics: every interleaving is equivalent to every other.
struct independent : rl::test_suite<independent, 3> {
  rl::atomic<int> x[3];
  void before() {
    for (auto& a : x) a.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned i) {
    for (int k = 1; k <= 3; k++) x[i].store(k, rl::mo_relaxed, $);
  }
};

// A failure in one order only: thread 2 first, then thread 1, then thread 0, the reverse of
// the order Relacy's first iteration runs them in; each thread also does private work first.
struct reversed_chain : rl::test_suite<reversed_chain, 3> {
  rl::atomic<int> a, b, c, own[3];
  void before() {
    a.store(0, rl::mo_relaxed, $);
    b.store(0, rl::mo_relaxed, $);
    c.store(0, rl::mo_relaxed, $);
    for (auto& o : own) o.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned i) {
    own[i].store(1, rl::mo_relaxed, $);
    own[i].store(2, rl::mo_relaxed, $);
    if (i == 2) a.store(1, rl::mo_release, $);
    if (i == 1 && a.load(rl::mo_acquire, $) == 1) b.store(1, rl::mo_release, $);
    if (i == 0 && b.load(rl::mo_acquire, $) == 1) c.store(1, rl::mo_relaxed, $);
  }
  void after() { RL_ASSERT(c.load(rl::mo_relaxed, $) == 0); }
};

// The same without the check: the outcomes (which of b and c were set) are compared instead.
struct chain_outcomes : reversed_chain {
  void after() { seen(b.load(rl::mo_relaxed, $) * 2 + c.load(rl::mo_relaxed, $)); }
};

// Three threads taking one mutex (waiters park in Relacy): every lock order must be reached.
struct lock_order : rl::test_suite<lock_order, 3> {
  rl::mutex m;
  rl::var<int> order;
  rl::atomic<int> own[3];
  void before() {
    order($) = 0;
    for (auto& o : own) o.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned i) {
    own[i].store(1, rl::mo_relaxed, $);
    announce_blocking_lock();  // a lock, not a try-lock (model/rl_env.hpp)
    m.lock($);
    order($) = order($) * 4 + (int)i + 1;
    m.unlock($);
    own[i].store(2, rl::mo_relaxed, $);
  }
  void after() { seen((unsigned)order($)); }  // 3 digits in base 4: below 64
};

// lock_order with more mutexes announced (model/rl_env.hpp) than the reduction keeps names for:
// the one that does not fit is the one taken, and from then on every step is global.
struct lock_order_past_the_names : rl::test_suite<lock_order_past_the_names, 3> {
  rl::mutex unused[exploration::kSyncPrimitives];
  rl::mutex m;
  rl::var<int> order;
  void before() {
    for (auto& u : unused) announce_sync_primitive(&u);
    announce_sync_primitive(&m);
    full = exploration::g_sync_primitives_full;
    order($) = 0;
    begin_iteration();
  }
  void thread(unsigned i) {
    announce_blocking_lock();
    m.lock($);
    order($) = order($) * 4 + (int)i + 1;
    m.unlock($);
  }
  void after() { seen((unsigned)order($)); }
  static inline bool full = false;
};

// The mutex as the reduction reads it (tests/reduction/README.md, "Locks"): a try-lock whose outcome depends on
// where it falls against the holder's lock and unlock, a waiter, and a flag the holder writes
// inside its critical section that a third thread reads outside any lock.
struct lock_and_trylock : rl::test_suite<lock_and_trylock, 3> {
  rl::mutex m;
  rl::atomic<int> flag;
  rl::var<int> data;
  void before() {
    flag.store(0, rl::mo_relaxed, $);
    data($) = 0;
    begin_iteration();
  }
  void thread(unsigned i) {
    if (i == 0) {
      announce_blocking_lock();
      m.lock($);
      data($) = 1;
      flag.store(1, rl::mo_relaxed, $);
      m.unlock($);
    } else if (i == 1) {
      if (m.try_lock($)) {  // 0: taken before thread 0's lock, 1: after its unlock; 2: failed
        seen(data($));
        m.unlock($);
      } else {
        seen(2);
      }
    } else {
      const int f = flag.load(rl::mo_relaxed, $);
      announce_blocking_lock();
      m.lock($);  // waits for thread 0 or 1 (a blocked attempt) or takes it first
      seen(3 + f * 2 + data($));
      m.unlock($);
    }
  }
};

// A sleeper woken through an event, as model/sched.hpp's tasks sleep: the flag it reads after
// the wake-up, and whether it had to sleep at all, in every order with a third busy thread.
struct wake_up : rl::test_suite<wake_up, 3> {
  rl::generic_event ev;
  rl::atomic<int> flag, busy;
  void before() {
    ev.init(false, false, RL_INFO);
    flag.store(0, rl::mo_relaxed, $);
    busy.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned i) {
    if (i == 0) {
      flag.store(1, rl::mo_release, $);
      ev.set(RL_INFO);
    } else if (i == 1) {
      const int early = flag.load(rl::mo_acquire, $);
      if (!early) ev.wait(false, false, RL_INFO);
      seen(early * 4 + flag.load(rl::mo_acquire, $) * 2 + busy.load(rl::mo_relaxed, $));
    } else {
      busy.store(1, rl::mo_relaxed, $);
      busy.store(1, rl::mo_relaxed, $);
    }
  }
  void after() { ev.deinit(RL_INFO); }
};

// An auto-reset event as the reduction reads it (tests/reduction/README.md, "Events"): the waiter consumes one of two
// sets; which one decides whether the event is left signalled. A wait that consumed a set races
// with the next set (reversed, that set finds the event already signalled and changes nothing).
struct set_twice : rl::test_suite<set_twice, 3> {
  rl::generic_event ev;
  rl::atomic<int> busy;
  void before() {
    ev.init(false, false, RL_INFO);
    busy.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned i) {
    if (i == 0) {
      ev.wait(false, false, RL_INFO);
    } else if (i == 1) {
      ev.set(RL_INFO);
      ev.set(RL_INFO);
    } else {
      busy.store(1, rl::mo_relaxed, $);
      busy.store(2, rl::mo_relaxed, $);
    }
  }
  void after() {
    seen(ev.wait(true, false, RL_INFO) == rl::sema_wakeup_reason_success);  // still signalled
    ev.deinit(RL_INFO);
  }
};

// Relacy's own choices inside a step: a relaxed load may read an older store.
struct relaxed_values : rl::test_suite<relaxed_values, 3> {
  rl::atomic<int> x, other;
  void before() {
    x.store(0, rl::mo_relaxed, $);
    other.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned i) {
    if (i == 0) {
      x.store(1, rl::mo_relaxed, $);
      x.store(2, rl::mo_relaxed, $);
    } else if (i == 1) {
      const int r1 = x.load(rl::mo_relaxed, $);
      const int r2 = x.load(rl::mo_relaxed, $);
      seen(r1 * 3 + r2);
    } else {
      other.store(1, rl::mo_relaxed, $);
      other.store(2, rl::mo_relaxed, $);
    }
  }
};

// Two identical threads take a ticket each, and a third counts: which thread got the first
// ticket, and whether the counter read before, between or after the tickets.
struct tickets : rl::test_suite<tickets, 3> {
  rl::atomic<int> next, own[2];
  int got[2];
  void before() {
    next.store(0, rl::mo_relaxed, $);
    for (auto& o : own) o.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned i) {
    if (i < 2) {
      got[i] = next.fetch_add(1, rl::mo_acq_rel, $);
      own[i].store(1, rl::mo_relaxed, $);
    } else {
      seen(8 + next.load(rl::mo_acquire, $));
    }
  }
  void after() { seen(got[0]); }  // 0 or 1: thread 0's ticket
};

// A thread with nothing shared to do, declared a twin: it ends before any second step.
struct idle_twins : rl::test_suite<idle_twins, 2> {
  rl::atomic<int> x;
  void before() {
    x.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned) {}
};

// Relacy's invariant(), checked at every scheduling point, sees states that a trace-equivalence
// reduction does not preserve: x == 0 and y == 1 exists only in the runs where thread 1 stores
// first, which are equivalent to those where thread 0 does (the stores are independent).
struct intermediate_state : rl::test_suite<intermediate_state, 2> {
  rl::atomic<int> x, y;
  bool ready = false;
  void before() {
    x.store(0, rl::mo_relaxed, $);
    y.store(0, rl::mo_relaxed, $);
    ready = true;
    begin_iteration();
  }
  void thread(unsigned i) { (i ? y : x).store(1, rl::mo_relaxed, $); }
  void invariant() {
    if (ready) RL_ASSERT(!(x.load(rl::mo_relaxed, $) == 0 && y.load(rl::mo_relaxed, $) == 1));
  }
};

// Twins that a check tells apart: thread 1 must not take the first ticket. Declared twins, they
// are searched only in the runs where thread 0 touches the counter first, and the failure is
// never reached: a wrong twin_of turns a failure into a pass. Symmetry.TwinDeclarationsHold
// checks every scenario's twins by searching without them too.
struct asymmetric_twins : rl::test_suite<asymmetric_twins, 2> {
  rl::atomic<int> next;
  int got[2];
  void before() {
    next.store(0, rl::mo_relaxed, $);
    begin_iteration();
  }
  void thread(unsigned i) { got[i] = next.fetch_add(1, rl::mo_relaxed, $); }
  void after() { RL_ASSERT(got[1] != 0); }
};

template <class Suite>
void expect_same_outcomes(const char* name, double min_ratio) {
  const Outcome plain = search<Suite>(false), reduced = search<Suite>(true);
  ASSERT_EQ(plain.result, rl::test_result_success) << name;
  EXPECT_EQ(reduced.result, rl::test_result_success) << name;
  EXPECT_NE(plain.seen, 0u) << name;
  EXPECT_EQ(reduced.seen, plain.seen) << name;
  EXPECT_EQ(reduced.fallbacks, 0u) << name;
  EXPECT_GE((double)plain.iterations, min_ratio * (double)reduced.iterations)
      << name << ": plain " << plain.iterations << ", reduced " << reduced.iterations;
  std::printf("%-16s plain %6llu  reduced %5llu  outcomes %d\n", name, (unsigned long long)plain.iterations,
              (unsigned long long)reduced.iterations, __builtin_popcountll(plain.seen));
}

}  // namespace

TEST(Dpor, IndependentStepsTakeOneIteration) {
  const Outcome plain = search<independent>(false), reduced = search<independent>(true);
  EXPECT_EQ(plain.result, rl::test_result_success);
  EXPECT_EQ(reduced.result, rl::test_result_success);
  EXPECT_GT(plain.iterations, 1000u);  // the interleavings of three stores and an end per thread
  EXPECT_EQ(reduced.iterations, 1u);
  std::printf("independent      plain %6llu  reduced %5llu\n", (unsigned long long)plain.iterations,
              (unsigned long long)reduced.iterations);
}

TEST(Dpor, FindsTheFailureOnlyTheReversedOrderReaches) {
  const Outcome plain = search<reversed_chain>(false), reduced = search<reversed_chain>(true);
  EXPECT_EQ(plain.result, rl::test_result_user_assert_failed);
  EXPECT_EQ(reduced.result, rl::test_result_user_assert_failed);
  EXPECT_GT(reduced.iterations, 1u);  // the first iteration runs the threads in the other order
  EXPECT_EQ(reduced.fallbacks, 0u);
}

TEST(Dpor, SameOutcomesAsPlainSearch) {
  expect_same_outcomes<chain_outcomes>("chain", 10);
  expect_same_outcomes<lock_order>("lock order", 2);
  expect_same_outcomes<lock_and_trylock>("lock, trylock", 2);
  expect_same_outcomes<wake_up>("wake-up", 2);
  expect_same_outcomes<set_twice>("set twice", 2);
  expect_same_outcomes<relaxed_values>("relaxed values", 2);
  expect_same_outcomes<lock_order_past_the_names>("past the names", 1);
  EXPECT_TRUE(lock_order_past_the_names::full);
}

TEST(Dpor, ShardsTogetherReachEveryOutcome) {
  const Outcome whole = search<lock_order>(true);
  uint64_t seen = 0;
  for (unsigned i = 0; i < 3; i++) {
    const Outcome part = search<lock_order>(true, i, 3);
    EXPECT_EQ(part.result, rl::test_result_success);
    seen |= part.seen;
  }
  EXPECT_EQ(seen, whole.seen);
  EXPECT_EQ(__builtin_popcountll(seen), 6);  // the six lock orders
}

// Symmetry: with thread 1 declared thread 0's twin, only the runs where thread 0 takes the first
// ticket are explored; mirrored (the threads' names swapped) they are every run plain search
// explores: the counter's readings are the same, and thread 0's ticket covers thread 1's.
TEST(Dpor, TwinsExploreOneMirrorImageOfEachRun) {
  for (bool reduce : {false, true}) {
    const Outcome all = search<tickets>(reduce), twins = search<tickets>(reduce, 0, 1, true);
    ASSERT_EQ(all.result, rl::test_result_success);
    EXPECT_EQ(twins.result, rl::test_result_success);
    EXPECT_FALSE(exploration::g_twin_misuse);
    EXPECT_EQ(all.seen & 3u, 3u) << "either thread may take the first ticket";
    EXPECT_EQ(twins.seen & 3u, 1u) << "only thread 0 takes the first ticket";
    EXPECT_EQ(twins.seen & ~3ull, all.seen & ~3ull) << "the counter's readings";
    EXPECT_LT(twins.iterations, all.iterations);
    std::printf("tickets %s  all %5llu  twins %5llu\n", reduce ? "reduced" : "plain  ",
                (unsigned long long)all.iterations, (unsigned long long)twins.iterations);
  }
  // Twins keep every lock order: only their first accesses (their own flags) are ordered.
  uint64_t seen = 0;
  for (bool reduce : {false, true}) {
    const Outcome twins = search<lock_order>(reduce, 0, 1, true);
    EXPECT_EQ(twins.result, rl::test_result_success);
    EXPECT_EQ(__builtin_popcountll(twins.seen), 6);
    seen |= twins.seen;
  }
  EXPECT_EQ(seen, search<lock_order>(true).seen);
}

// A twin that ends before touching shared state would leave its twin waiting for ever: the
// search says so instead of reporting a deadlock the program does not have.
TEST(Dpor, TwinThatNeverTouchesSharedStateIsReported) {
  search<idle_twins>(false, 0, 1, true);
  EXPECT_TRUE(exploration::g_twin_misuse);
  search<idle_twins>(false);
  EXPECT_FALSE(exploration::g_twin_misuse);
}

TEST(Dpor, InvariantTurnsTheReductionOff) {
  EXPECT_TRUE(exploration::checks_intermediate_states<intermediate_state>());
  EXPECT_FALSE(exploration::checks_intermediate_states<independent>());
  const Outcome plain = search<intermediate_state>(false), reduced = search<intermediate_state>(true);
  EXPECT_EQ(plain.result, rl::test_result_user_invariant_failed);
  EXPECT_EQ(reduced.result, rl::test_result_user_invariant_failed);
}

TEST(Dpor, AsymmetricTwinsHideAFailureOnlyASearchWithoutThemFinds) {
  for (bool reduce : {false, true}) {
    EXPECT_EQ(search<asymmetric_twins>(reduce).result, rl::test_result_user_assert_failed) << reduce;
    EXPECT_EQ(search<asymmetric_twins>(reduce, 0, 1, true).result, rl::test_result_success) << reduce;
  }
}
