// Names for the objects of one iteration, so that a counterexample trace says
// "count of i_mmap_rwsem of A" where Relacy prints an address. Fixed storage: objects register
// while Relacy runs the iteration; the driver reads the table after the replay of a failure.
#pragma once
#include <cstddef>

// Off while a search runs whose iterations no trace is made from: a reduced search, which reads
// Relacy's history only for what each step touched (verify/search/explore.hpp), and replays a failing
// iteration with it on. The model then names no object and writes no row of its own.
inline bool g_trace_wanted = true;

// Forget the previous iteration's names (called when a scenario is constructed).
void trace_names_reset();
// Name the object at addr: printf-style, e.g. trace_name(&count, "count of %s", sem_name).
void trace_name(const void* addr, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// The name registered for addr, or nullptr.
const char* trace_name_of(const void* addr);
