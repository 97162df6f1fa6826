// The kernel shim for kernel/locking/rwsem.c: what the functions verify/kernel/kernel_extract.py takes
// from the tree need from the kernel's headers, mapped to the model's objects. The extracted
// code goes into namespace krwsem (its enums and struct rwsem_waiter share names with the hand
// model's) and is compiled as an x86-64 SMP kernel is (Debian's configuration):
// CONFIG_PREEMPT_RT=n, CONFIG_RWSEM_SPIN_ON_OWNER=y (optimistic spinning, below),
// CONFIG_DEBUG_RWSEMS=n (`vmaverify kernel --config` changes the last two). verify/README.md
// ("vmaverify kernel") lists each mapping.
// Every macro that the kernel code expands and that touches shared state passes RL_INFO, which
// under the extracted code's #line directives is the kernel's own file and line: the trace row
// of an atomic on sem->count cites kernel/locking/rwsem.c:LINE.
#pragma once
#include "model/call_chain.hpp"
#include "model/check.hpp"
#include "model/kernel_rwsem.hpp"
#include "model/preempt.hpp"
#include "model/sched.hpp"
#include "model/trace_names.hpp"
#include "model/zeroed_atomic.hpp"

// container_of over the shim's list_head inside struct rwsem_waiter, whose instrumented members
// make it a non-standard-layout type to C++ (its layout is still fixed: GCC computes the offset).
#pragma GCC diagnostic ignored "-Winvalid-offsetof"

// A history row at the kernel's call site (a trace row, not a scheduling point).
inline void kshim_rwsem_row(rl::debug_info_param info, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  history_row_v(info, fmt, ap);
  va_end(ap);
}

// The end of an object on a task's stack: its bytes are cleared where the compiler cannot drop
// the stores (the lifetime ends right after), so that Relacy's signature check sees an access
// to it from another task as one to a destroyed object.
inline void kshim_poison(void* p, std::size_t n) {
  std::memset(p, 0, n);
  asm volatile("" : : "r"(p) : "memory");
}
// The first member of Outer, destroyed last: it clears all of Outer once the instrumented
// members' own destructors (which check their signatures) have run.
template <class Outer>
struct kshim_poison_last {
  ~kshim_poison_last() { kshim_poison(this, sizeof(Outer)); }
};

namespace krwsem {

// include/linux/compiler.h, include/linux/kernel.h, include/linux/bits.h
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define BITS_PER_LONG 64
#define HZ 250
#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
#define __sched
#define noinline
#undef __always_inline  // glibc's, for C++ code
#define __always_inline inline
#define __releases(x)
#undef EINTR
#define EINTR 4

// include/linux/err.h: ERR_PTR converts to any pointer (C converts void * implicitly, C++ does not).
struct kshim_err_ptr {
  long error;
  template <class T>
  operator T*() const { return reinterpret_cast<T*>(error); }
};
#define ERR_PTR(e) (::krwsem::kshim_err_ptr{(long)(e)})
#define IS_ERR(p) ((unsigned long)(void*)(p) >= (unsigned long)-4095)

// atomic_long_t (include/linux/atomic/atomic-long.h) over a Relacy atomic, with the kernel's
// orderings: plain ops (read, set, add, andnot, or) relaxed; _acquire/_release as named;
// value-returning ops without a suffix fully ordered (seq_cst); a failed try_cmpxchg relaxed.
typedef rl::atomic<long> atomic_long_t;
// Every change a read-modify-write makes to a word, for the handoff check (kshim_count_changed,
// model/kshim/rwsem_register.h: after the tree's code, whose RWSEM_* bits it reads). Ghost.
inline void kshim_count_changed(atomic_long_t* v, long old, long nw, rl::debug_info_param info);
inline long kshim_fetch_add(atomic_long_t* v, long i, rl::memory_order mo, rl::debug_info_param info) {
  const long old = v->fetch_add(i, mo, info);
  kshim_count_changed(v, old, old + i, info);
  return old;
}
inline long kshim_add_return(atomic_long_t* v, long i, rl::memory_order mo, rl::debug_info_param info) {
  return kshim_fetch_add(v, i, mo, info) + i;
}
inline void kshim_andnot(atomic_long_t* v, long i, rl::debug_info_param info) {
  const long old = v->fetch_and(~i, rl::mo_relaxed, info);
  kshim_count_changed(v, old, old & ~i, info);
}
inline void kshim_or(atomic_long_t* v, long i, rl::debug_info_param info) {
  const long old = v->fetch_or(i, rl::mo_relaxed, info);
  kshim_count_changed(v, old, old | i, info);
}
// old is a long * or, for sem->owner, an unsigned long * (C converts, C++ does not).
template <class T>
bool kshim_try_cmpxchg(atomic_long_t* v, T* old, long nw, rl::memory_order mo, rl::debug_info_param info) {
  static_assert(sizeof(T) == sizeof(long), "try_cmpxchg on a long");
  long expected = (long)*old;
  bool ok = v->compare_exchange_strong(expected, nw, mo, info, rl::mo_relaxed, info);
  if (ok) kshim_count_changed(v, expected, nw, info);
  *old = (T)expected;
  return ok;
}
#define atomic_long_read(v) ((v)->load(rl::mo_relaxed, RL_INFO))
#define atomic_long_set(v, i) ((v)->store((long)(i), rl::mo_relaxed, RL_INFO))
#define atomic_long_add(i, v) ((void)::krwsem::kshim_fetch_add((v), (long)(i), rl::mo_relaxed, RL_INFO))
#define atomic_long_andnot(i, v) ::krwsem::kshim_andnot((v), (long)(i), RL_INFO)
#define atomic_long_or(i, v) ::krwsem::kshim_or((v), (long)(i), RL_INFO)
#define atomic_long_add_return(i, v) kshim_add_return((v), (long)(i), rl::mo_seq_cst, RL_INFO)
#define atomic_long_add_return_acquire(i, v) kshim_add_return((v), (long)(i), rl::mo_acquire, RL_INFO)
#define atomic_long_add_return_release(i, v) kshim_add_return((v), (long)(i), rl::mo_release, RL_INFO)
#define atomic_long_fetch_add(i, v) ::krwsem::kshim_fetch_add((v), (long)(i), rl::mo_seq_cst, RL_INFO)
#define atomic_long_fetch_add_release(i, v) ::krwsem::kshim_fetch_add((v), (long)(i), rl::mo_release, RL_INFO)
#define atomic_long_try_cmpxchg(v, old, nw) kshim_try_cmpxchg((v), (old), (long)(nw), rl::mo_seq_cst, RL_INFO)
#define atomic_long_try_cmpxchg_acquire(v, old, nw) kshim_try_cmpxchg((v), (old), (long)(nw), rl::mo_acquire, RL_INFO)

// A field of struct rwsem_waiter that another task reads or writes without the wait_lock, or
// that the kernel accesses with smp_load_acquire / smp_store_release (task, handoff_set): a
// Relacy atomic whose plain reads and writes are relaxed (what a C compiler emits for an
// aligned word), so that their races are explored rather than reported as data races.
template <class T>
struct kshim_racy {
  kshim_poison_last<kshim_racy> poison;
  zeroed_atomic<T> v;  // starts zeroed with no scheduling point, like a stack slot
  int task;            // ghost: the task whose waiter this is
  explicit kshim_racy(const char* field) : task((int)rl::thread_index()) {
    trace_name(&v, "waiter.%s of task %d", field, task);
  }
  operator T() const { return v.load(rl::mo_relaxed, RL_INFO); }
  kshim_racy& operator=(T x) {
    v.store(x, rl::mo_relaxed, RL_INFO);
    return *this;
  }
};
// Ghost, for the handoff check: the tasks whose waiter another task granted the lock
// (rwsem_mark_wake's smp_store_release(&waiter->task, NULL)) since their lock operation began.
constexpr int KSHIM_MAX_GRANTED = 32;
inline bool kshim_granted[KSHIM_MAX_GRANTED];
template <class T, class U>
void kshim_store(kshim_racy<T>* p, U x, rl::memory_order mo, rl::debug_info_param info) {
  p->v.store((T)x, mo, info);
  if constexpr (std::is_pointer<T>::value)
    if ((T)x == nullptr && p->task != (int)rl::thread_index() && p->task >= 0 && p->task < KSHIM_MAX_GRANTED)
      kshim_granted[p->task] = true;
}
template <class T>
T kshim_load(kshim_racy<T>* p, rl::memory_order mo, rl::debug_info_param info) {
  return p->v.load(mo, info);
}
// include/asm-generic/barrier.h, include/asm-generic/rwonce.h
#define smp_store_release(p, x) kshim_store((p), (x), rl::mo_release, RL_INFO)
#define smp_load_acquire(p) kshim_load((p), rl::mo_acquire, RL_INFO)
#define WRITE_ONCE(x, val) kshim_store(&(x), (val), rl::mo_relaxed, RL_INFO)
#define READ_ONCE(x) kshim_load(&(x), rl::mo_relaxed, RL_INFO)
#define smp_acquire__after_ctrl_dep() rl::atomic_thread_fence(rl::mo_acquire, RL_INFO)
#define smp_mb() rl::atomic_thread_fence(rl::mo_seq_cst, RL_INFO)

// struct list_head (include/linux/list.h): links in instrumented variables, so that a link read
// after its waiter's frame is gone is reported; the list ops are the kernel's, written here, each
// passing the kernel's line for its rows.
// Named for traces as a waiter's (the list_heads a task constructs are its waiter's); the
// semaphore renames its own wait_list's. Rows then read the same from run to run, not addresses.
struct list_head {
  kshim_poison_last<list_head> poison;
  rl::var<list_head*> next, prev;
  // Ghost copies of the links (the handoff check walks the wait list without a step) and the
  // task that made the node (a waiter's, on its stack).
  list_head *ghost_next = this, *ghost_prev = this;
  int task = (int)rl::thread_index();
  list_head() {
    next($) = this;
    prev($) = this;
    trace_name(this, "waiter.list of task %d", task);
    trace_name(&next, "waiter.list.next of task %d", task);
    trace_name(&prev, "waiter.list.prev of task %d", task);
  }
};
using kshim_info = rl::debug_info_param;
inline list_head* kshim_next(list_head* h, kshim_info i) { return h->next(i); }
inline void kshim_init_list_head(list_head* h, kshim_info i) {
  h->next(i) = h;
  h->prev(i) = h;
  h->ghost_next = h->ghost_prev = h;
}
inline void kshim_list_add(list_head* n, list_head* prev, list_head* next, kshim_info i) {
  next->prev(i) = n;
  n->next(i) = next;
  n->prev(i) = prev;
  prev->next(i) = n;
  next->ghost_prev = n;
  n->ghost_next = next;
  n->ghost_prev = prev;
  prev->ghost_next = n;
}
inline void kshim_list_add_tail(list_head* n, list_head* head, kshim_info i) { kshim_list_add(n, head->prev(i), head, i); }
inline void kshim_list_unlink(list_head* e, kshim_info i) {
  list_head *prev = e->prev(i), *next = e->next(i);
  next->prev(i) = prev;
  prev->next(i) = next;
  next->ghost_prev = prev;
  prev->ghost_next = next;
}
// LIST_POISON1/2: the links of a deleted entry point nowhere valid.
inline void kshim_list_del(list_head* e, kshim_info i) {
  kshim_list_unlink(e, i);
  e->next(i) = reinterpret_cast<list_head*>(0x100);
  e->prev(i) = reinterpret_cast<list_head*>(0x122);
  e->ghost_next = e->ghost_prev = nullptr;
}
inline void kshim_list_move_tail(list_head* e, list_head* head, kshim_info i) {
  kshim_list_unlink(e, i);
  kshim_list_add_tail(e, head, i);
}
inline bool kshim_list_empty(list_head* h, kshim_info i) { return h->next(i) == h; }
inline bool kshim_list_is_singular(list_head* h, kshim_info i) {
  return !kshim_list_empty(h, i) && h->next(i) == h->prev(i);
}
#define INIT_LIST_HEAD(h) ::krwsem::kshim_init_list_head((h), RL_INFO)
#define list_add_tail(n, h) ::krwsem::kshim_list_add_tail((n), (h), RL_INFO)
#define list_del(e) ::krwsem::kshim_list_del((e), RL_INFO)
#define list_move_tail(e, h) ::krwsem::kshim_list_move_tail((e), (h), RL_INFO)
#define list_empty(h) ::krwsem::kshim_list_empty((h), RL_INFO)
#define list_is_singular(h) ::krwsem::kshim_list_is_singular((h), RL_INFO)
#define container_of(ptr, type, member) ((type*)((char*)(ptr)-offsetof(type, member)))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry(::krwsem::kshim_next((ptr), RL_INFO), type, member)
#define list_next_entry(pos, member) \
  list_entry(::krwsem::kshim_next(&(pos)->member, RL_INFO), std::remove_reference_t<decltype(*(pos))>, member)
#define list_entry_is_head(pos, head, member) (&(pos)->member == (head))
#define list_for_each_entry_safe(pos, n, head, member)                                            \
  for (pos = list_first_entry(head, std::remove_reference_t<decltype(*(pos))>, member),              \
      n = list_next_entry(pos, member);                                                             \
       !list_entry_is_head(pos, head, member); pos = n, n = list_next_entry(n, member))

// raw_spinlock_t over the hand model's wait_lock (a blocking Relacy mutex, so that waiting is
// not a livelock), with the owner lockdep_assert_held checks. Taking it disables preemption
// first (the waiter spins on its CPU), releasing it enables it after.
struct raw_spinlock_t {
  rl::mutex* m;
  int ghost_owner;
};
inline void kshim_section_begins(const char* func);
inline int kshim_preempt_count() { return g_cpus.preempt_count[rl::thread_index() % cpu_world::kMaxTasks]; }
inline void kshim_spin_lock(raw_spinlock_t* l, const char* func, rl::debug_info_param info) {
  preempt_count_add(1, info);
  if (kshim_preempt_count() == 1) kshim_section_begins(func);
  announce_blocking_lock();
  l->m->lock(info);
  l->ghost_owner = rl::thread_index();
}
inline void kshim_spin_unlock(raw_spinlock_t* l, rl::debug_info_param info) {
  if (l->ghost_owner != (int)rl::thread_index())
    vm_fail("lock not held", info, "raw_spin_unlock of the wait_lock, which this task does not hold");
  l->ghost_owner = -1;
  l->m->unlock(info);
  preempt_count_add(-1, info);
}
#define raw_spin_lock_irq(l) kshim_spin_lock((l), __func__, RL_INFO)
#define raw_spin_unlock_irq(l) kshim_spin_unlock((l), RL_INFO)
#define raw_spin_lock_irqsave(l, flags) ((void)&(flags), kshim_spin_lock((l), __func__, RL_INFO))
#define raw_spin_unlock_irqrestore(l, flags) ((void)&(flags), kshim_spin_unlock((l), RL_INFO))
#define lockdep_assert_held(l) \
  VM_CHECK((l)->ghost_owner == (int)rl::thread_index(), "lock not held", "lockdep_assert_held(%s) fails", #l)

// struct optimistic_spin_queue, osq_lock, osq_unlock (kernel/locking/osq_lock.c): the MCS queue
// that lets one optimistic spinner at a time spin on sem->owner. Modelled as what it guarantees,
// a lock at most one spinner holds: osq_lock takes it when free; when another spinner holds it,
// the queued spinner either waits its turn (a blocking Relacy mutex: the holder's spin is
// bounded) or gives up (the kernel's osq_lock returns false when need_resched() or its
// predecessor's CPU is preempted): an explored choice. Not modelled: the queue's own nodes and
// their unqueue protocol (a bug inside osq_lock.c would be hidden; it is not rwsem.c's code).
struct optimistic_spin_queue {
  rl::mutex m;
};
inline bool kshim_osq_lock(optimistic_spin_queue* q, rl::debug_info_param info) {
  if (q->m.try_lock(info)) return true;
  bool give_up = rl::rand(2) == 1;
  kshim_rwsem_row(info, "osq_lock: another spinner holds it; %s", give_up ? "gives up (need_resched)" : "waits its turn");
  if (give_up) return false;
  announce_blocking_lock();
  q->m.lock(info);
  return true;
}
#define osq_lock(q) ::krwsem::kshim_osq_lock((q), RL_INFO)
#define osq_unlock(q) ((q)->m.unlock(RL_INFO))

// The semaphores by their count word (kshim_count_changed looks a word up). Ghost. A run that
// fails may not destroy its semaphores, so an entry is replaced when a new semaphore's count
// word has its address, and the oldest goes when all are taken.
struct rw_semaphore;
struct kshim_sem_entry {
  atomic_long_t* count;
  rw_semaphore* sem;
};
inline kshim_sem_entry kshim_sems[8];
inline unsigned kshim_sems_next;
inline void kshim_sems_add(atomic_long_t* count, rw_semaphore* s) {
  for (kshim_sem_entry& e : kshim_sems)
    if (e.count == count) {
      e.sem = s;
      return;
    }
  kshim_sems[kshim_sems_next++ % 8] = {count, s};
}
inline rw_semaphore* kshim_sem_of(atomic_long_t* count) {
  for (const kshim_sem_entry& e : kshim_sems)
    if (e.count == count) return e.sem;
  return nullptr;
}

// struct rw_semaphore (include/linux/rwsem.h): count and wait_lock are the hand model's objects
// (rw_semaphore::attach_kernel_rwsem), owner and wait_list the kernel code's own.
struct rw_semaphore {
  atomic_long_t& count;
  atomic_long_t owner;
  raw_spinlock_t wait_lock;
  optimistic_spin_queue osq;  // CONFIG_RWSEM_SPIN_ON_OWNER
  list_head wait_list;
  void* magic;  // CONFIG_DEBUG_RWSEMS
  const char* name;
  // Ghost, for the handoff check: the task RWSEM_FLAG_HANDOFF was set for (the first waiter
  // then), -1 while it is clear.
  int ghost_handoff_for = -1;
  rw_semaphore(atomic_long_t* c, rl::mutex* wl, const char* n) : count(*c), wait_lock{wl, -1}, magic(this), name(n) {
    kshim_sems_add(c, this);
    // __init_rwsem: owner 0 (count is the hand model's, already RWSEM_UNLOCKED_VALUE).
    owner.store(0, rl::mo_relaxed, $);
    trace_name(&owner, "owner of %s", n);
    announce_sync_primitive(&osq.m);
    trace_name(relacy_impl_address(&osq.m), "osq of %s", n);
    trace_name(&wait_list, "%s->wait_list", n);
    trace_name(&wait_list.next, "%s->wait_list.next", n);
    trace_name(&wait_list.prev, "%s->wait_list.prev", n);
  }
};
#define RWSEM_UNLOCKED_VALUE 0L

// include/linux/sched.h, kernel/sched/core.c: tasks and wake-ups are the model's (model/sched.hpp),
// which follows the kernel's wake_q rules. TASK_UNINTERRUPTIBLE and TASK_KILLABLE sleeps are
// modelled; in a killable one a fatal signal may be pending at any check or end the sleep (an
// explored choice, model/sched.hpp signal_pending_killable). TASK_INTERRUPTIBLE (other signals)
// is not: a wait in that state is a check failure, so that it is never silently uninterruptible.
#define current (::current_task())
#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1
#define TASK_UNINTERRUPTIBLE 2
#define TASK_WAKEKILL 256
#define TASK_KILLABLE (TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
inline bool kshim_signal_pending_state(int state, ::task_struct* p, rl::debug_info_param info) {
  VM_CHECK(p == ::current_task(), "unmodelled", "signal_pending_state of another task");
  if (state == TASK_UNINTERRUPTIBLE) return false;
  VM_CHECK(state == TASK_KILLABLE, "unmodelled", "signal_pending_state(%d): only TASK_KILLABLE waits take signals here", state);
  bool pending = ::signal_pending_killable(info);
  kshim_rwsem_row(info, "signal_pending_state(TASK_KILLABLE): %s", pending ? "fatal signal pending" : "none");
  return pending;
}
#define signal_pending_state(state, p) ::krwsem::kshim_signal_pending_state((state), (p), RL_INFO)
// rt_or_dl_task (include/linux/sched/rt.h): a SCHED_FIFO task of a scenario that places its
// tasks on CPUs (model/preempt.hpp); every task is SCHED_NORMAL elsewhere.
inline bool kshim_rt_or_dl_task(::task_struct* p) { return p && task_is_rt(p->pid); }
#define rt_or_dl_task(p) ::krwsem::kshim_rt_or_dl_task(p)

// Optimistic spinning (CONFIG_RWSEM_SPIN_ON_OWNER=y). A spin loop's turn that finds sem->owner
// as it was writes nothing: a later turn is the same step taken later, which the search already
// explores by delaying the earlier one. So need_resched() (include/linux/sched.h: the scheduler
// wants this CPU) is false at a task's first check in a stretch (a lock operation, from its
// preempt_disable(), or the time since its last sleep) and true from then on: the writer decides
// to spin (rwsem_can_spin_on_owner), spins on a writer owner for one look past the first and
// stops, or makes one pass of rwsem_optimistic_spin's loop; a handoff spin after a wake-up gets
// a fresh stretch. What this leaves out: a second pass of rwsem_optimistic_spin's loop (its
// history, prev_owner_state, matters only for RT tasks, not modelled, and for the reader-owned
// spin's time limit, checked on every 16th pass: sched_clock() > rspin_threshold, then
// rwsem_set_nonspinnable); a bug only on those paths would be hidden.
// A SCHED_FIFO task of a scenario with CPUs (model/preempt.hpp) is the exception: nothing of
// higher priority ever wants its CPU, so its need_resched() is always false and its spins last
// as long as their conditions do: each cpu_relax() is a spin turn (a yield, and the livelock
// check of model/preempt.hpp).
// owner_on_cpu(owner) (include/linux/sched.h: the owner runs and its vCPU is not preempted) is
// whether the owner runs on its CPU now in a scenario with CPUs, and an explored choice at
// every call elsewhere (which task runs on a CPU is then not modelled).
constexpr int KSHIM_MAX_TASKS = 8;
// Task lifetimes (model/sched.hpp): owner_on_cpu(owner) reads the owner's task_struct, which only
// RCU keeps alive once the owner has exited; a preempt-disabled stretch (preempt_disable, a raw
// spinlock) is the read-side section, and schedule() ends it (a new one begins when it returns
// with the count raised). A section's start loads the other tasks' exits only where rwsem.c
// can look at sem->owner's task in it: a section that begins in the writer's lock path (the
// functions below). owner_on_cpu in a section that began elsewhere is `unmodelled` (a patch that
// spins elsewhere), never a silent pass.
inline uint32_t kshim_exited_before[KSHIM_MAX_TASKS];  // thread-private: the tasks seen exited at the start
inline const char* kshim_section_began_in[KSHIM_MAX_TASKS];
inline bool kshim_section_tracked(const char* func) {
  for (const char* f : {"__down_write_common", "rwsem_down_write_slowpath", "rwsem_can_spin_on_owner",
                        "rwsem_optimistic_spin", "rwsem_spin_on_owner"})
    if (std::strcmp(func, f) == 0) return true;
  return false;
}
inline int kshim_task_slot();
inline void kshim_section_begins(const char* func) {
  if (!g_task_lifetimes) return;
  const int t = kshim_task_slot();
  kshim_section_began_in[t] = func;
  kshim_exited_before[t] = kshim_section_tracked(func) ? tasks_seen_exited() : 0;
}
// The caller is about to read `owner`'s task_struct (owner->on_cpu) for `what`.
inline void kshim_owner_task_alive(::task_struct* owner, const char* what, rl::debug_info_param info) {
  if (!g_task_lifetimes || !owner || owner == current_task()) return;
  const int t = kshim_task_slot();
  if (kshim_preempt_count() == 0) {
    VM_CHECK(!task_seen_exited(owner), "use-after-free",
             "%s(task %d) reads the task_struct of a task that has exited, outside any RCU read-side section "
             "(preemption enabled): a grace period may have freed it",
             what, owner->pid);
    return;
  }
  VM_CHECK(kshim_section_tracked(kshim_section_began_in[t]), "unmodelled",
           "%s(task %d) in a preempt-disabled section that began in %s, where task lifetimes are not tracked "
           "(model/kshim/rwsem.h)",
           what, owner->pid, kshim_section_began_in[t]);
  VM_CHECK(!((kshim_exited_before[t] >> owner->pid) & 1u), "use-after-free",
           "%s(task %d) reads the task_struct of a task that exited before this RCU read-side section "
           "(preempt_disable in %s) began: a grace period may have freed it",
           what, owner->pid, kshim_section_began_in[t]);
}
// Thread-private: each task reads and writes its own slot.
inline bool kshim_resched_asked[KSHIM_MAX_TASKS];
inline int kshim_spin_entries[KSHIM_MAX_TASKS];
inline bool kshim_spin_relaxed[KSHIM_MAX_TASKS];
inline int kshim_clock_reads[KSHIM_MAX_TASKS];
inline unsigned long long kshim_clock[KSHIM_MAX_TASKS];
inline int kshim_task_slot() {
  unsigned t = rl::thread_index();
  if (t >= (unsigned)KSHIM_MAX_TASKS) vm_fail("unmodelled", RL_INFO, "more than %d tasks spin", KSHIM_MAX_TASKS);
  return (int)(t % KSHIM_MAX_TASKS);
}
// A new stretch: a lock operation starts (preempt_disable) or the task wakes up (schedule).
inline void kshim_stretch_start() {
  int t = kshim_task_slot();
  kshim_resched_asked[t] = kshim_spin_relaxed[t] = false;
  kshim_spin_entries[t] = 0;
}
inline bool kshim_rt_current() { return task_is_rt(rl::thread_index()); }
inline bool kshim_need_resched(rl::debug_info_param info) {
  if (kshim_rt_current()) return rt_task_need_resched();
  int t = kshim_task_slot();
  bool resched = kshim_resched_asked[t];
  kshim_resched_asked[t] = true;
  if (resched) kshim_rwsem_row(info, "need_resched(): true (the spin stops)");
  return resched;
}
#define need_resched() ::krwsem::kshim_need_resched(RL_INFO)
inline void kshim_cpu_relax(rl::debug_info_param info) {
  kshim_spin_relaxed[kshim_task_slot()] = true;
  kshim_rwsem_row(info, "cpu_relax()");
  if (!kshim_rt_current()) return;
  cpu_spin_turn("a cpu_relax() spin loop", info);
  rl::yield(1, info);
}
// lockdep_assert_preemption_disabled() opens rwsem_spin_on_owner, the one spin of rwsem.c (it
// opens rwsem_set_owner and rwsem_clear_owner too, which are no spin: __func__ tells). A
// second entry in one stretch without cpu_relax() is the handoff spin-and-retry's next turn
// (goto trylock_again), a loop need_resched() does not end: it is Relacy's spin-loop yield, so
// that the retry's loads read no value older than what had been stored when it yielded (a retry
// that re-reads a stale count forever is the memory model's, not the hardware's) and the others
// have a turn before it runs again.
inline void kshim_spin_entry(rl::debug_info_param info) {
  int t = kshim_task_slot();
  if (kshim_spin_entries[t]++ > 0 && !kshim_spin_relaxed[t]) {
    kshim_rwsem_row(info, "rwsem_spin_on_owner again: the spin loop yields");
    cpu_spin_turn("rwsem_spin_on_owner (the handoff retry, goto trylock_again)", info);
    rl::yield(1, info);
  }
  kshim_spin_relaxed[t] = false;
}
#define cpu_relax() ::krwsem::kshim_cpu_relax(RL_INFO)
#define barrier() __asm__ __volatile__("" : : : "memory")
inline bool kshim_owner_on_cpu(::task_struct* owner, rl::debug_info_param info) {
  kshim_owner_task_alive(owner, "owner_on_cpu", info);
  bool on_cpu = g_cpus.active ? owner && task_on_cpu(owner->pid) : rl::rand(2) == 1;
  kshim_rwsem_row(info, "owner_on_cpu(task %d): %s", owner ? owner->pid : -1, on_cpu ? "running" : "not running");
  return on_cpu;
}
#define owner_on_cpu(owner) ::krwsem::kshim_owner_on_cpu((owner), RL_INFO)
// sched_clock(): a task's clock, 0 at its lock operation's start; each later reading stands still
// or jumps a second (an explored choice), so that any comparison of two readings goes both ways.
typedef unsigned long long u64;
#define NSEC_PER_USEC 1000L
inline u64 kshim_sched_clock(rl::debug_info_param info) {
  int t = kshim_task_slot();
  u64& c = kshim_clock[t];
  if (kshim_clock_reads[t]++ > 0 && rl::rand(2) == 1) c += 1000000000ULL;
  kshim_rwsem_row(info, "sched_clock(): %llu ns", c);
  return c;
}
#define sched_clock() ::krwsem::kshim_sched_clock(RL_INFO)
inline void kshim_set_current_state(int state, rl::debug_info_param info) {
  VM_CHECK(state == TASK_UNINTERRUPTIBLE || state == TASK_KILLABLE, "unmodelled",
           "set_current_state(%d): only TASK_UNINTERRUPTIBLE and TASK_KILLABLE are modelled", state);
  kshim_rwsem_row(info, state == TASK_KILLABLE ? "set_current_state(TASK_KILLABLE)" : "set_current_state(TASK_UNINTERRUPTIBLE)");
  if (state == TASK_KILLABLE) set_current_state_killable();
  else set_current_state_uninterruptible();
}
#define set_current_state(state) kshim_set_current_state((state), RL_INFO)
// __set_current_state(TASK_RUNNING): the model's run state is reset by the next set_current_state.
#define __set_current_state(state) ((void)(state))
inline void kshim_schedule(const char* func, rl::debug_info_param info) {
  kshim_rwsem_row(info, "schedule()");
  ::schedule();
  kshim_stretch_start();  // need_resched() answers false once more after each sleep
  // A context switch is a quiescent state: the section the raised count keeps is a new one.
  if (kshim_preempt_count() > 0) kshim_section_begins(func);
}
#define schedule_preempt_disabled() kshim_schedule(__func__, RL_INFO)
#define DEFINE_WAKE_Q(name) ::wake_q_head name
#define wake_q_init(q) ((q)->n = 0)
inline void kshim_wake_q_add(::wake_q_head* q, ::task_struct* t, bool safe, rl::debug_info_param info) {
  kshim_rwsem_row(info, "%s(task %d)", safe ? "wake_q_add_safe" : "wake_q_add", t ? t->pid : -1);
  if (safe)
    ::wake_q_add_safe(q, t);
  else
    ::wake_q_add(q, t);
}
#define wake_q_add(q, t) kshim_wake_q_add((q), (t), false, RL_INFO)
#define wake_q_add_safe(q, t) kshim_wake_q_add((q), (t), true, RL_INFO)
inline void kshim_wake_up_q(::wake_q_head* q, rl::debug_info_param info) {
  kshim_rwsem_row(info, "wake_up_q (%d task(s))", q->n);
  ::wake_up_q(q);
}
#define wake_up_q(q) kshim_wake_up_q((q), RL_INFO)
inline void kshim_get_task_struct(::task_struct* t, rl::debug_info_param info) {
  kshim_rwsem_row(info, "get_task_struct(task %d)", t ? t->pid : -1);
  ::get_task_struct(t);
}
#define get_task_struct(t) kshim_get_task_struct((t), RL_INFO)

// RWSEM_WAIT_TIMEOUT: whether a waiter has waited long enough is the hand model's
// nondeterministic choice (model/rwsem_count.hpp rwsem_wait_timed_out); jiffies is never read.
#define jiffies 0UL
inline bool kshim_time_after(rl::debug_info_param info) {
  bool after = rl::rand(2) == 1;
  kshim_rwsem_row(info, "time_after(jiffies, waiter->timeout): %s", after ? "timed out" : "not yet");
  return after;
}
#define time_after(a, b) ((void)(a), (void)(b), kshim_time_after(RL_INFO))

// preempt_disable() raises the task's preempt count (model/preempt.hpp: in a scenario with CPUs
// no other task of its CPU runs until it is 0 again) and starts each lock operation: a new
// stretch for need_resched(), the clock at 0. No-ops: lockdep beyond lockdep_assert_held, lock
// statistics and tracepoints.
inline void kshim_preempt_disable(const char* func, rl::debug_info_param info) {
  preempt_count_add(1, info);
  if (kshim_preempt_count() == 1) kshim_section_begins(func);
  kshim_stretch_start();
  kshim_clock[kshim_task_slot()] = 0;
  kshim_clock_reads[kshim_task_slot()] = 0;
}
#define preempt_disable() ::krwsem::kshim_preempt_disable(__func__, RL_INFO)
#define preempt_enable() preempt_count_add(-1, RL_INFO)
inline void kshim_lockdep_assert_preemption_disabled(const char* func, rl::debug_info_param info) {
  if (std::strcmp(func, "rwsem_spin_on_owner") == 0) kshim_spin_entry(info);
}
#define lockdep_assert_preemption_disabled() ::krwsem::kshim_lockdep_assert_preemption_disabled(__func__, RL_INFO)
#define lockevent_inc(ev) ((void)0)
#define lockevent_cond_inc(ev, c) ((void)(c))
#define trace_contention_begin(lock, flags) ((void)0)
#define trace_contention_end(lock, ret) ((void)0)

// WARN_ON_ONCE: a failed check (a warning is a bug). DEBUG_RWSEMS_WARN_ON is the tree's own,
// empty without CONFIG_DEBUG_RWSEMS (the default, as in distribution kernels).
inline bool kshim_warn(bool cond, const char* what, rl::debug_info_param info) {
  if (cond) vm_fail("kernel warning", info, "WARN_ON_ONCE(%s)", what);
  return cond;
}
#define WARN_ON_ONCE(c) kshim_warn(!!(c), #c, RL_INFO)
// With --config CONFIG_DEBUG_RWSEMS=y the tree's DEBUG_RWSEMS_WARN_ON(c, sem) is
// `if (!debug_locks_silent && WARN_ONCE(c, ...)) debug_locks_off();`: its warning is a failed
// check too. (rwsem.c's only WARN_ONCE is that one.)
inline bool kshim_debug_warn(bool cond, const char* what, rl::debug_info_param info) {
  if (cond) vm_fail("kernel warning", info, "DEBUG_RWSEMS_WARN_ON(%s)", what);
  return cond;
}
// Its first argument after the format is the check as written (#c), current and all.
#define WARN_ONCE(c, fmt, text, ...) kshim_debug_warn(!!(c), text, RL_INFO)
#define debug_locks_silent 0
#define debug_locks_off() ((void)0)

}  // namespace krwsem

// C code may name a variable new (rwsem_try_write_lock does), a C++ keyword that Relacy also
// defines as a macro: after every header, it names a variable.
#undef new
#define new kshim_new
