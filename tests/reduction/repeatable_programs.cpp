// Relacy's headers stay out of the test file (test_repeatable.cpp), whose GoogleTest macros
// they would break.
#include "tests/reduction/repeatable_programs.hpp"
#include "model/zeroed_atomic.hpp"
#include "verify/search/explore.hpp"
#undef new
#undef delete

namespace {

// Fixed storage: anything allocated inside a run lands on Relacy's heap.
bool g_outcomes[2][2];

// The word under test, of either kind, in storage of its own: constructed in before(), after a
// word of Relacy's kind whose slot is left holding zeros in its first record (as fresh memory
// does), so that the Relacy atomic slot allocator (LIFO) hands that slot to the word under test.
template <bool RelacyOwn>
struct message_passing : rl::test_suite<message_passing<RelacyOwn>, 2> {
  typedef typename std::conditional<RelacyOwn, rl::generic_atomic<int, true>, zeroed_atomic<int>>::type word;
  alignas(word) unsigned char storage[sizeof(word)];
  word* z = nullptr;
  rl::atomic<int> y;
  int r1 = -1, r2 = -1;

  void before() {
    y.store(0, rl::mo_relaxed, $);
    {
      rl::generic_atomic<int, true> dirty;
      rl::atomic_data* impl;
      std::memcpy(&impl, reinterpret_cast<const char*>(&dirty) + offsetof(relacy_fix::generic_atomic_layout<int>, impl_),
                  sizeof impl);
      auto& var = *static_cast<rl::atomic_data_impl<2>*>(impl);
      auto& rec = var.history_[var.current_index_ % rl::atomic_history_size];
      for (auto& seen : rec.first_seen_order_) seen = 0;
    }
    z = ::new (storage) word();
  }
  void thread(unsigned i) {
    if (i == 1) {
      z->store(1, rl::mo_relaxed, $);
      y.store(1, rl::mo_relaxed, $);
    } else {
      r1 = y.load(rl::mo_relaxed, $);
      r2 = z->load(rl::mo_relaxed, $);
    }
  }
  void after() {
    g_outcomes[r1 & 1][r2 & 1] = true;
    z->~word();
  }
};

// The engine's full search of Suite, unreduced, its output dropped.
template <class Suite>
rl::test_result_e full_search() {
  rl::ostringstream out, progress;
  rl::test_params p;
  p.search_type = rl::sched_full;
  p.output_stream = &out;
  p.progress_stream = &progress;
  std::string state;
  return exploration::run_with<Suite>(p, &state);
}

template <class Suite>
std::set<std::pair<int, int>> outcomes() {
  for (auto& row : g_outcomes) row[0] = row[1] = false;
  if (full_search<Suite>() != rl::test_result_success) return {{-1, -1}};
  std::set<std::pair<int, int>> got;
  for (int r1 = 0; r1 < 2; r1++)
    for (int r2 = 0; r2 < 2; r2++)
      if (g_outcomes[r1][r2]) got.insert({r1, r2});
  return got;
}

// Thread 0 chooses among three in every other run: the same path, a different set of choices.
struct chooses_every_other_run : rl::test_suite<chooses_every_other_run, 2> {
  rl::atomic<int> x;
  void before() { x.store(0, rl::mo_relaxed, $); }
  void thread(unsigned i) {
    static unsigned runs = 0;
    if (i == 0 && (runs++ & 1)) (void)rl::rand(3);
    x.store((int)i + 1, rl::mo_relaxed, $);
  }
};

}  // namespace

bool nondeterminism_detected(std::string* what) {
  exploration::g_nondeterminism[0] = 0;
  const rl::test_result_e r = full_search<chooses_every_other_run>();
  *what = exploration::g_nondeterminism;
  exploration::g_nondeterminism[0] = 0;
  return r == rl::test_result_until_condition_hit && !what->empty();
}

std::set<std::pair<int, int>> message_passing_outcomes(bool relacy_own) {
  return relacy_own ? outcomes<message_passing<true>>() : outcomes<message_passing<false>>();
}
