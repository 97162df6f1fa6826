// What the steps of an interleaving touched, read from Relacy's own execution history as Relacy
// writes it (test_params::output_history streams every event to test_params::output_stream as it
// happens): the reduction (verify/shard_scheduler.hpp) needs no hook inside Relacy or the model.
#pragma once
#include <algorithm>
#include <cstring>
#include <streambuf>
#include "model/rl_env.hpp"

namespace exploration {

// The objects one step touched: address and whether it wrote. `global` when the step did
// something whose effect is not tied to one object (a yield, a line too long to read): it
// conflicts with every step.
struct Footprint {
  typename rl::vector<uintptr_t>::type objects;  // address << 1 | wrote
  bool global = false;

  void clear() {
    objects.clear();
    global = false;
  }
  void add(uintptr_t address, bool wrote) {
    const uintptr_t key = address << 1 | (wrote ? 1 : 0);
    for (uintptr_t& o : objects)
      if (o >> 1 == address) {
        o |= key;
        return;
      }
    objects.push_back(key);
  }
  void merge(const Footprint& f) {
    global = global || f.global;
    for (uintptr_t o : f.objects) add(o >> 1, o & 1);
  }
  // Two steps conflict (may not commute) when one is global or both touch an object and one writes it.
  bool conflicts(const Footprint& f) const {
    if (global || f.global) return true;
    for (uintptr_t a : objects)
      for (uintptr_t b : f.objects)
        if (a >> 1 == b >> 1 && ((a | b) & 1)) return true;
    return false;
  }
};

// Pseudo-objects for effects Relacy keeps outside any one object.
constexpr uintptr_t kSeqCstOrder = 1;  // seq_cst fences order against each other (seq_cst_fence_order_)
constexpr uintptr_t kHeap = 2;         // Relacy's heap: which block an allocation gets depends on the order

// The stream Relacy's history goes to during a reduced search: each event line is added to
// *target. Fixed storage: it runs inside iterations, where allocations land on Relacy's heap.
class history_tap : public std::streambuf {
 public:
  Footprint* target = nullptr;

 protected:
  int_type overflow(int_type c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    put((char)c);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const char* end = s + n;
    while (s < end) {  // whole runs up to each newline: the tap sees every event Relacy logs
      const char* nl = static_cast<const char*>(std::memchr(s, '\n', end - s));
      const char* stop = nl ? nl : end;
      const size_t run = stop - s, room = sizeof line_ - 1 - len_;
      std::memcpy(line_ + len_, s, std::min(run, room));
      len_ += std::min(run, room);
      too_long_ = too_long_ || run > room;
      if (!nl) break;
      put('\n');
      s = nl + 1;
    }
    return n;
  }

 private:
  char line_[1024];
  size_t len_ = 0;
  bool too_long_ = false;

  void put(char c) {
    if (c != '\n') {
      if (len_ + 1 < sizeof line_) line_[len_++] = c;
      else too_long_ = true;
      return;
    }
    line_[len_] = 0;
    if (target) read_event(line_, too_long_);
    len_ = 0;
    too_long_ = false;
  }

  // One line "[INDEX] THREAD: EVENT, in FUNCTION, FILE(LINE)" (relacy/history.hpp, output()).
  void read_event(const char* line, bool cut) {
    if (line[0] != '[') return;  // a report line, not an event
    const char* ev = std::strstr(line, ": ");
    if (!ev) return;
    ev += 2;
    if (cut) {  // what the event touched may be in the part not kept
      target->global = true;
      return;
    }
    // An object's event: atomic, variable, mutex, event, condition variable, semaphore, futex.
    // A seq_cst atomic orders through its own object only (relacy/thread.hpp), not the fences' order.
    if (ev[0] == '<') {
      const uintptr_t address = (uintptr_t)std::strtoull(ev + 1, nullptr, 16);
      const char* op = std::strchr(ev, '>');
      const bool reads = op && (std::strncmp(op, "> atomic load,", 14) == 0 || std::strncmp(op, "> load,", 7) == 0);
      target->add(address, !reads);
      return;
    }
    if (std::strstr(ev, "seq_cst fence")) target->add(kSeqCstOrder, true);  // joins seq_cst_fence_order_
    if (std::strncmp(ev, "memory allocation", 17) == 0 || std::strncmp(ev, "memory deallocation", 19) == 0) {
      target->add(kHeap, true);
      return;
    }
    // A yield changes other threads' priorities; WFMO waits on several objects at once.
    if (std::strncmp(ev, "yield(", 6) == 0 || std::strncmp(ev, "WFMO", 4) == 0) target->global = true;
    // Left: fences other than seq_cst (they change only the thread's own clocks), a thread
    // blocking itself or unblocking another (always in the step of the operation on the object
    // it waits on or signals, which is added above), and the model's own log lines.
  }
};

}  // namespace exploration
