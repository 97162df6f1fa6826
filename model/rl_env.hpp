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
