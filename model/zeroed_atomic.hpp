// zeroed_atomic<T>: an instrumented word that starts zeroed with no scheduling point, like a
// fresh stack slot or a kzalloc'ed field (a waiter's handoff_set, a wake_q node's next).
//
// Relacy's own zero-initialised atomic, rl::generic_atomic<T, true>, leaves part of its first
// store record unset: rl::thread_info::atomic_init (relacy/thread.hpp) fills the record's
// acq_rel_order_ but not its first_seen_order_, and every later load reads that field
// (get_load_index: whether the loading thread already saw the initial value, and read-read
// coherence). Its value is whatever the atomic's slot held before: a previous atomic of the same
// search, or a previous search's heap. So whether a load may still return the initial value
// depended on memory, not on the run: a search replayed a recorded choice against a different
// set of choices (one search, run after a completed reduced one in the same process, crashed in
// waitset::try_remove on a choice larger than its number of waiters), and a slot that held zeros
// (fresh memory) made every thread count as having seen the initial value, so a load after
// another task's store could never return it: runs the kernel has were not explored.
// zeroed_atomic completes the record as Relacy's other constructor does for an initialised
// atomic: seen by no thread yet.
#pragma once
#include <cstddef>
#include <cstring>
#include <type_traits>
#include "model/rl_env.hpp"

namespace relacy_fix {

// rl::generic_atomic<T, true>'s data members, in its order (relacy/atomic.hpp). It has no base
// and no virtual function and all its members are private: a standard-layout class, laid out
// as this one is. The static_asserts below check what can be checked of that.
template <class T>
struct generic_atomic_layout {
  T value_;
  T history_[rl::atomic_history_size];
  rl::atomic_data* impl_;
  unsigned last_index_;
  rl::signature<987654321> sign_;
  bool initialized_;
  bool already_failed_;
};

// Mark the initial record of the atomic behind impl (just initialised by atomic_init) as seen
// by no thread of the running test, whose thread count is N.
template <rl::thread_id_t N>
void initial_record_unseen(rl::atomic_data* impl) {
  auto& var = *static_cast<rl::atomic_data_impl<N>*>(impl);
  auto& rec = var.history_[var.current_index_ % rl::atomic_history_size];
  for (rl::thread_id_t i = 0; i < N; i++) rec.first_seen_order_[i] = (rl::timestamp_t)-1;
}
void initial_record_unseen(rl::atomic_data* impl, rl::thread_id_t thread_count);

}  // namespace relacy_fix

template <class T>
class zeroed_atomic : public rl::generic_atomic<T, true> {
  typedef rl::generic_atomic<T, true> base;
  typedef relacy_fix::generic_atomic_layout<T> layout;
  static_assert(std::is_standard_layout<base>::value, "Relacy's generic_atomic changed its layout");
  static_assert(sizeof(base) == sizeof(layout) && alignof(base) == alignof(layout),
                "Relacy's generic_atomic changed its members");

 public:
  zeroed_atomic() {
    rl::atomic_data* impl;
    std::memcpy(&impl, reinterpret_cast<const char*>(static_cast<base*>(this)) + offsetof(layout, impl_), sizeof impl);
    relacy_fix::initial_record_unseen(impl, rl::ctx().get_thread_count());
  }
};
