// Small concurrent programs for testing the search engine itself: a few threads of a few
// operations each over Relacy's atomics, fences, mutexes, events and variables. One text form
// serves the litmus files (tests/reduction/litmus/) and the programs the random differential
// prints when the reduced search disagrees with plain search, so a printed program can be
// saved as a litmus file as it is.
//
//   # comment
//   event e0 manual 1              (e0/e1: auto-reset unless "manual"; initially set if 1)
//   finals                         (the outcome includes the atomics' final values)
//   heap                           (the atomics, variables, mutexes and events live in a block
//                                   the set-up allocates on Relacy's heap, at an address that
//                                   moves from run to run; "heap unlogged": allocated as
//                                   Relacy's inline operator new does, without a log entry)
//   sync named                     (the mutexes and events are announced as they are built,
//                                   as the model's are: model/rl_env.hpp; without the line
//                                   they are named by where Relacy keeps their state, which
//                                   moves from run to run)
//   T0: store x 1 relaxed; r = load y acquire
//   T1: lock m0; write a 1; unlock m0
//   expect: T0=0 T1= | T0=1 T1=    (litmus files: the exact set of outcomes)
//   cpus 0 1r 0                    (tasks on CPUs, model/preempt.hpp: each thread's CPU, r for
//                                   SCHED_FIFO; without the line no thread has a CPU)
//
// Objects: atomics x y z, variables a b (rl::var: an unordered pair of accesses is a data
// race), mutexes m0 m1, events e0 e1. Operations (each returning value goes to the thread's
// next register): load X MO, store X V MO, fetch_add X MO, exchange X V MO,
// cas X EXPECTED MO FAILURE_MO (register: 8 if it succeeded, plus the value it read),
// fence MO, lock M, unlock M, trylock M (register: 1 if taken), set E, reset E, wait E,
// read A, write A V, rand N (register: a value in [0, N)), yield; and for tasks on CPUs:
// pdisable, penable (preempt_disable / preempt_enable), oncpu T (register: 1 if task T runs on
// its CPU, owner_on_cpu), spin X (up to 3 turns while X reads 0, each a spin loop's turn and a
// yield; register: the turns taken). A wait of a task on a CPU sleeps in schedule(): it gives
// the CPU up.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace program {

enum class Kind : uint8_t {
  load, store, fetch_add, exchange, cas, fence, lock, unlock, trylock, set, reset, wait, read, write, rand, yield,
  pdisable, penable, oncpu, spin
};
// As rl::memory_order's values, by name.
enum class Order : uint8_t { relaxed, consume, acquire, release, acq_rel, seq_cst };
// Where the atomics and variables live: in the test, or in a block of Relacy's heap whose
// allocation is logged (as Relacy's new macro and vmaverify's operator new log theirs) or not.
enum class Heap : uint8_t { none, logged, unlogged };

struct Op {
  Kind kind;
  uint8_t object = 0;  // x y z / a b / m0 m1 / e0 e1 / T0..T3, by index
  uint8_t value = 0;   // stored, exchanged, expected, written; rand's limit
  Order order = Order::seq_cst, failure = Order::relaxed;
  bool operator==(const Op& o) const {
    return kind == o.kind && object == o.object && value == o.value && order == o.order && failure == o.failure;
  }
};

constexpr unsigned kMaxThreads = 4, kAtomics = 3, kVars = 2, kMutexes = 2, kEvents = 2;
// Registers are packed into a 64-bit outcome, 4 bits each, with the atomics' final values.
constexpr unsigned kMaxRegisters = 12;

struct Program {
  unsigned threads = 2;
  std::vector<Op> code[kMaxThreads];
  bool manual_reset[kEvents] = {false, false};
  bool initially_set[kEvents] = {false, false};
  bool finals = false;     // the outcome includes the atomics' final values
  Heap heap = Heap::none;  // where the atomics and variables live
  bool sync_named = false;  // the mutexes and events are announced (announce_sync_primitive)
  bool symmetric = false;  // thread 1 runs thread 0's code (twins)
  int cpu_of[kMaxThreads] = {-1, -1, -1, -1};  // each thread's CPU; -1 for none
  bool rt[kMaxThreads] = {false, false, false, false};  // SCHED_FIFO
  bool has_cpus() const { return cpu_of[0] >= 0; }  // the "cpus" line gives every thread one

  unsigned registers(unsigned t) const;
  unsigned register_count() const;
  bool blocks() const;  // some operation can park its thread (lock, wait)
  std::string text() const;
};

bool returns_value(Kind k);
// An outcome (registers and, with finals, the atomics' final values) as the litmus files
// write it: "T0=1,0 T1= x=1 y=2 z=0".
std::string outcome_text(const Program& p, uint64_t outcome);

// Parses the text form; on an error, false with the line and what is wrong in *error.
// Litmus files' "expect:" line goes to *expected (outcome texts), if given.
bool parse(const std::string& text, Program* p, std::string* error, std::vector<std::string>* expected = nullptr);

// A random program (tests/reduction/README.md, "Testing the tester"): 2 to 4 threads.
// With `blocking`, mutexes held around the variables' accesses (no data race) and events that
// may never be set (a deadlock); without, unprotected variables (a data race) and no operation
// that blocks. Either way a search can fail in one way only, so its kind can be compared. With
// `cpus`, its tasks are on two CPUs, some SCHED_FIFO, with preempt-disabled sections,
// owner_on_cpu and spin loops, and no unprotected variable: it fails by getting stuck (a
// deadlock, or a livelock's assertion: an RT task blocked on a mutex that a task it keeps off
// its CPU holds is the one or the other, by the order the search meets it) or not at all.
// With `fenced` (no CPUs), a step is an atomic operation, a seq_cst fence (a third of them)
// or, without `blocking`, sometimes an unprotected variable's access: store-buffering,
// message-passing and IRIW shapes whose outcomes the fences' order decides.
Program generate(std::mt19937_64& rng, bool blocking, bool cpus = false, bool fenced = false);

// The same program with operation `index` (counted over all threads) removed; its lock's
// matching unlock goes with a removed lock.
bool without_op(const Program& p, unsigned index, Program* out);
unsigned op_count(const Program& p);

}  // namespace program
