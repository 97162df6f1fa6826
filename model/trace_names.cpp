#include "model/trace_names.hpp"

#include <cstdarg>
#include <cstdio>

namespace {
struct Entry {
  const void* addr;
  char name[128];
};
Entry table[256];
int used = 0;
}  // namespace

void trace_names_reset() { used = 0; }

void trace_name(const void* addr, const char* fmt, ...) {
  if (!g_trace_wanted || used >= 256) return;  // names are a courtesy: a full table leaves addresses unnamed
  Entry& e = table[used++];
  e.addr = addr;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(e.name, sizeof e.name, fmt, ap);
  va_end(ap);
}

const char* trace_name_of(const void* addr) {
  for (int i = used - 1; i >= 0; i--)
    if (table[i].addr == addr) return table[i].name;
  return nullptr;
}
