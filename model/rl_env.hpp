// Include point for every Relacy-instrumented file. Relacy redefines new, delete,
// malloc, free and assert, so every standard header must come before it.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

// Placement construction of an object with a lifetime inside an iteration (a waiter on a task's
// stack), defined before Relacy redefines new.
template <class T>
T* construct_in(void* storage) {
  return ::new (storage) T;
}

#include <relacy/relacy.hpp>

// A blocking acquisition of a Relacy mutex, announced by the one who takes it (the model's
// spin locks and rw_semaphores) just before the lock call. Relacy records a lock that blocked
// or not and a try-lock that succeeded as the same event; the reduction reads an announced one
// as a lock that cannot come before the unlock that let it in, and any other as a try-lock
// (which can, failing), so forgetting to announce costs only reduction, never a run.
namespace exploration {
extern bool g_blocking_lock[32];  // per thread; verify/search/step_footprint.hpp reads and clears it
}
inline void announce_blocking_lock() { exploration::g_blocking_lock[rl::thread_index()] = true; }

// A Relacy mutex or event, announced by the code that builds it (init, or its constructor).
// Relacy keeps its state in a block from a per-type free list, whose address in a run depends
// on the order in which the previous run freed such blocks; its events name that block. The
// reduction names the state by the primitive's own address instead, which is the test's (the
// same in every run) or in a block of Relacy's heap (named by its block): the same in every run
// that built it, so a work-stealing worker may let a step that touched it sleep
// (tests/reduction/README.md, "Work-stealing"). One not announced costs only that.
namespace exploration {
struct sync_primitive {
  uintptr_t state, primitive;  // the address of Relacy's state for it; its own
};
constexpr unsigned kSyncPrimitives = 128;
extern sync_primitive g_sync_primitives[kSyncPrimitives];  // this iteration's, in the order built
extern unsigned g_sync_primitive_count;                    // cleared as an iteration begins
// One did not fit: from then on the run names no state by its primitive, and its footprints
// are global (history_reader), for a state handed out again could find an earlier one's name.
extern bool g_sync_primitives_full;
}  // namespace exploration
// The address of a Relacy mutex's or event's state, which its events record (and a trace names):
// rl::generic_mutex and rl::generic_event keep it as the first data member after the vtable
// pointer.
inline const void* relacy_impl_address(const void* primitive) {
  return *reinterpret_cast<const void* const*>(static_cast<const char*>(primitive) + sizeof(void*));
}
inline void announce_sync_primitive(const void* primitive) {
  using namespace exploration;
  if (g_sync_primitive_count == kSyncPrimitives) {
    g_sync_primitives_full = true;
    return;
  }
  g_sync_primitives[g_sync_primitive_count++] = {(uintptr_t)relacy_impl_address(primitive), (uintptr_t)primitive};
}
