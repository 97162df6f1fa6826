// Work-stealing for a reduced full search (`run --jobs N --steal`): the search starts in one process;
// whenever a worker's place is free, a process that still has unexplored choices forks, and the
// new process (a worker) takes some of them, the shallowest, while the old one drops them
// (shard_scheduler.hpp, split). A fork copies the whole search state, so a worker goes on from
// exactly where its parent was: no tree is serialised, and no slice is fixed in advance, so a
// long subtree does not keep one process busy while the others idle (static shards did:
// tests/reduction/README.md, "Work-stealing").
//
// This file is the processes' side only, and knows nothing of Relacy or results: places, the
// shared counters (iterations against a budget, a stop when one process failed), and one pipe
// on which each worker hands its result, as an opaque blob, to the first process.
#pragma once
#include <sys/types.h>
#include <cstdint>
#include <string>
#include <vector>

namespace exploration {
namespace work_stealing {

// Sets up a pool of `jobs` processes, this one the first (no-op for jobs < 2). False with *err
// when the shared counters or the pipe cannot be made.
bool begin(unsigned jobs, std::string* err);
// A pool is set up (in the first process and in every worker).
bool active();
// This process is a worker forked for a split (not the first process).
bool is_worker();
// A worker's place is free: a split would start one (a relaxed read; called once an iteration).
// False too while this process has begun fewer iterations than the split delay.
bool place_free();
// The engine's tests: a process (the first, and each worker) splits only once it has begun this
// many iterations of its own, so that the splits fall deeper in the tree than at the first free
// place, as they do in a long search (0, the default: at once).
void set_split_delay(uint64_t iterations);
// The engine's tests: a process that forks a worker waits until the worker's search has ended
// before it goes on, so that one process runs at a time, in the same order on every run: the
// worker first, which then claims every choice at a shared node that both would want.
void set_serial(bool serial);
// Takes a free place and forks: 0 in the new worker, its pid in the parent, -1 when no place
// was free or fork failed (the parent then keeps the choices). In the worker, reset_hook runs
// first, to zero the figures it counts for itself.
pid_t fork_worker();
extern void (*reset_hook)();

// Iterations begun by all processes of the pool, this one's included (after counting it).
uint64_t count_iteration();
// One process failed: the others stop at their next iteration (their result is incomplete;
// the failure decides the verdict).
void stop_all();
bool stopped();
// Splits made so far, by all processes.
uint64_t splits();
// A thread choice at a node that several processes share (the path to it, as a 128-bit key
// a, b): true if this process may explore it, false if another claimed it first (it explores
// that subtree; here the choice counts as explored). A full table answers true: the subtree may
// then be explored twice, never not at all.
bool claim(uint64_t a, uint64_t b);
// Whether some process claimed it (claim), without claiming it.
bool claimed(uint64_t a, uint64_t b);

// A worker's end: its place is freed, its blob handed to the first process, its own workers
// waited for; then it exits. Never returns.
[[noreturn]] void finish_worker(const std::string& blob);

// The first process's end: waits for every worker to finish and returns their blobs. A worker
// that ended without handing one (a crash) makes it return false with *err saying so.
bool end(std::vector<std::string>* blobs, std::string* err);

}  // namespace work_stealing
}  // namespace exploration
