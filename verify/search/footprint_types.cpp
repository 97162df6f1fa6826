// The event types the reduction reads from their fields (verify/search/step_footprint.hpp): Relacy's
// own, and those of the types the model instruments. A type left out is read from its printed
// text, the same footprint but slower: Reduction.SameVerdict checks that no event of a
// scenario's reduced search needs its text.
#include "model/rl_env.hpp"
#include "verify/search/step_footprint.hpp"

struct task_struct;   // model/sched.hpp
struct wake_q_node;   // model/sched.hpp
struct rwsem_waiter;  // model/rwsem_count.hpp
namespace krwsem {
struct list_head;  // model/kshim/rwsem.h
}

namespace exploration {
namespace {

// var: rl::var's load or store, by the event's load_ flag; mutex: by the operation (event_reader::read_mutex).
enum class Access { read, write, var, mutex, waitable };

// The object an event is about: var_addr_ for atomics, variables and mutexes, addr_ for the others.
template <class E>
auto object(const E& e, int) -> decltype((uintptr_t)e.var_addr_) {
  return (uintptr_t)e.var_addr_;
}
template <class E>
uintptr_t object(const E& e, long) {
  return (uintptr_t)e.addr_;
}

template <class E, Access A>
void read_object_event(const void* ev, Footprint& f) {
  const E& e = *static_cast<const E*>(ev);
  bool wrote = A == Access::write;
  if constexpr (A == Access::var) wrote = !e.load_;
  if constexpr (A == Access::var) f.var = true;  // checked for a data race against the thread's clocks
  if constexpr (A == Access::mutex) {
    typedef event_reader::mutex_op op;
    return event_reader::read_mutex(e.type_ == E::type_lock     ? op::lock
                                    : e.type_ == E::type_unlock ? op::unlock
                                    : e.type_ == E::type_wait   ? op::blocked
                                                                : op::other,
                                    object(e, 0), f);
  }
  if constexpr (A == Access::waitable) return f.add_waitable(object(e, 0), true);
  f.add(object(e, 0), wrote);
}

template <class E, Access A>
void add(event_types& t) {
  t.add(&rl::event_output<E>, &read_object_event<E, A>);
}

// rl::atomic<T> (and rl::generic_atomic<T, ...>) and rl::var<T>.
template <class T>
void add_instrumented(event_types& t) {
  add<rl::atomic_load_event<T>, Access::read>(t);
  add<rl::atomic_store_event<T>, Access::write>(t);
  add<rl::atomic_cas_event<T>, Access::write>(t);
  add<rl::atomic_rmw_event<T, typename rl::atomic_add_type<T>::type>, Access::write>(t);
  add<rl::atomic_rmw_event<T, T>, Access::write>(t);
  add<rl::var_event<T>, Access::var>(t);
}

// An event type registered when this template is instantiated explicitly (below): an explicit
// instantiation may name a type private to a Relacy class, as rl::event_data_impl's are.
template <class E, Access A>
struct instantiated_event {
  static const bool added;
};
template <class E, Access A>
const bool instantiated_event<E, A>::added = (add<E, A>(event_types::all()), true);

// Relacy's mutex (the semaphore's wait_lock), read by its operation, and event (a task's run
// state), per thread count: a set, reset or wait changes the event's state, a write.
#define VMAVERIFY_SYNC_EVENTS(N)                                                               \
  template struct instantiated_event<rl::generic_mutex_data_impl<N>::event_t, Access::mutex>;  \
  template struct instantiated_event<rl::event_data_impl<N>::state_event, Access::waitable>;   \
  template struct instantiated_event<rl::event_data_impl<N>::wait_event, Access::waitable>;
VMAVERIFY_SYNC_EVENTS(1)
VMAVERIFY_SYNC_EVENTS(2)
VMAVERIFY_SYNC_EVENTS(3)
VMAVERIFY_SYNC_EVENTS(4)
VMAVERIFY_SYNC_EVENTS(5)
VMAVERIFY_SYNC_EVENTS(6)
VMAVERIFY_SYNC_EVENTS(7)
VMAVERIFY_SYNC_EVENTS(8)

// Relacy's events that are no object's.
void seq_cst_fence(const void* ev, Footprint& f) {
  // Only seq_cst fences order against each other (seq_cst_fence_order_); other fences change
  // only the thread's own clocks.
  if (static_cast<const rl::atomic_fence_event*>(ev)->mo_ == rl::mo_seq_cst) f.add(kSeqCstOrder, true);
}
void heap(const void*, Footprint& f) { f.add(kHeap, true); }
void everything(const void*, Footprint& f) { f.global = true; }  // a yield changes every thread's priority
// A thread blocking itself or unblocking another does so in the step of the operation on the
// object it waits on or signals, which that event adds; the model's log lines touch nothing.
void nothing(const void*, Footprint&) {}

const bool registered = [] {
  event_types& t = event_types::all();
  add_instrumented<int>(t);
  add_instrumented<unsigned>(t);
  add_instrumented<long>(t);
  add_instrumented<unsigned long>(t);
  add_instrumented<bool>(t);
  add_instrumented<void*>(t);
  add_instrumented<task_struct*>(t);
  add_instrumented<wake_q_node*>(t);
  add_instrumented<rwsem_waiter*>(t);
  add_instrumented<krwsem::list_head*>(t);
  t.add(&rl::event_output<rl::atomic_fence_event>, &seq_cst_fence);
  t.add(&rl::event_output<rl::memory_alloc_event>, &heap);
  t.add(&rl::event_output<rl::memory_free_event>, &heap);
  t.add(&rl::event_output<rl::yield_event>, &everything);
  t.add(&rl::event_output<rl::park_event>, &nothing);
  t.add(&rl::event_output<rl::unpark_event>, &nothing);
  t.add(&rl::event_output<rl::user_event>, &nothing);
  t.add(&rl::event_output<rl::user_msg_event>, &nothing);
  return true;
}();

}  // namespace
}  // namespace exploration
