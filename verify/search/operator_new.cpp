// The global operator new of every vmaverify binary. Relacy's headers define one that returns
// malloc's NULL when memory runs out (context.hpp), so a failed allocation would be a null
// pointer crash. This strong definition takes precedence over those inline ones at link time
// (call sites Relacy inlined into the model keep Relacy's; they allocate during iterations),
// allocates where Relacy's would, and ends a failed allocation as the contract's bad input:
// exit 2 with one line on stderr. Deliberately free of Relacy's headers.
#include <unistd.h>
#include <cstddef>
#include <new>

namespace exploration {
void* relacy_or_malloc(std::size_t size);  // explore.cpp: Relacy's heap inside an iteration, else malloc
}

namespace {
[[noreturn]] void out_of_memory(std::size_t size) {
  static const char msg[] = "vmaverify: out of memory (an input too large for this machine)\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  (void)size;
  _exit(2);
}

void* allocate(std::size_t size) {
  void* p = exploration::relacy_or_malloc(size ? size : 1);
  if (!p) out_of_memory(size);
  return p;
}
}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
