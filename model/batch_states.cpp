#include "model/batch_states.hpp"

#include <cstring>

bool (*g_batch_state_check)(const BatchSnapshot& s, char* message, unsigned size) = nullptr;

namespace {
constexpr int CAPACITY = 1 << 14;  // open addressing, power of two
BatchSnapshot table[CAPACITY];
bool used[CAPACITY];
int stored = 0;
long dropped = 0;

unsigned long hash_of(const BatchSnapshot& s) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(&s);
  unsigned long h = 1469598103934665603UL;  // FNV-1a
  for (size_t i = 0; i < sizeof s; i++) h = (h ^ p[i]) * 1099511628211UL;
  return h;
}
}  // namespace

void record_batch_state(const BatchSnapshot& s) {
  for (unsigned long i = hash_of(s) & (CAPACITY - 1), probes = 0; probes < CAPACITY; i = (i + 1) & (CAPACITY - 1), probes++) {
    if (!used[i]) {
      if (stored >= CAPACITY / 2) break;  // keep probing short
      used[i] = true;
      table[i] = s;
      stored++;
      return;
    }
    if (std::memcmp(&table[i], &s, sizeof s) == 0) return;
  }
  dropped++;
}

void reset_batch_states() {
  std::memset(used, 0, sizeof used);
  stored = 0;
  dropped = 0;
}

std::vector<BatchSnapshot> explored_batch_states() {
  std::vector<BatchSnapshot> out;
  for (int i = 0; i < CAPACITY; i++)
    if (used[i]) out.push_back(table[i]);
  return out;
}

long dropped_batch_states() { return dropped; }

void note_dropped_batch_states(long n) { dropped += n; }
