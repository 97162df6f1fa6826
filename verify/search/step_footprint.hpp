// What the steps of an interleaving touched, read from Relacy's own record of the run's events
// (rl::history_mgr, filled when test_params::collect_history is on): the reduction
// (verify/search/shard_scheduler.hpp) needs no hook inside Relacy or the model.
#pragma once
#include <algorithm>
#include <cstring>
#include <ostream>
#include <streambuf>
#include <unordered_map>
#include "model/rl_env.hpp"

namespace exploration {

// Pseudo-objects for effects Relacy keeps outside any one object.
constexpr uintptr_t kSeqCstOrder = 1;  // seq_cst fences order against each other (seq_cst_fence_order_)
constexpr uintptr_t kHeap = 2;         // Relacy's heap: which block an allocation gets depends on the order
// Tasks on CPUs (model/preempt.hpp), for CPU c and task t (both below 32): which task holds CPU c
// (kCpuCurr + c); whether its holder keeps the CPU's other tasks off it, a lock (kCpuExclusive + c,
// read and written as a mutex's pseudo-objects are: README, "Locks"); whether task t runs on its
// CPU (kOnCpu + t).
constexpr uintptr_t kCpuCurr = 16, kCpuExclusive = 48, kOnCpu = 80;
constexpr uintptr_t kPseudoObjectsEnd = 128;  // no object of the program's lies below

// The objects one step touched: address and whether it wrote. `global` when the step did
// something whose effect is not tied to one object (a yield, an event too long to read): it
// conflicts with every step.
struct Footprint {
  typename rl::vector<uintptr_t>::type objects;  // address << 1 | wrote, with the tags below
  bool global = false;
  // Some object was written by two events (added twice as written): in a step's own footprint,
  // two stores to one object (the reduction's load floor, shard_scheduler.hpp, needs at most one).
  // Defensive: a step is one operation (Relacy schedules before each), so today no step rewrites.
  bool rewrote = false;
  // Some event was a variable's (rl::var) access, which Relacy checks for a data race against
  // the thread's clocks (the fence rule, shard_scheduler.hpp's fences_used, needs to know).
  bool var = false;
  // It touched the state of a mutex, an event or another waitable object named by the address
  // Relacy gave it, which moves from run to run (one nobody announced: model/rl_env.hpp).
  bool moving = false;

  // A mutex's two pseudo-objects (README, "Locks"). Its acquisition order: written by each lock,
  // read by an attempt that blocks. Its release: written by an unlock, read by the next lock; a
  // conflict through it orders the two steps but is no race to reverse (a lock cannot come
  // before the unlock that let it in; the race to reverse is with the previous holder's lock).
  static constexpr uintptr_t kLockOrder = uintptr_t(1) << 61, kRelease = uintptr_t(1) << 62;
  // An object a thread can wait on without recording the attempt before it parks (an event, a
  // semaphore, a condition variable; any object read from its text but atomics and variables):
  // a parked wait whose object is not known yet may depend on a step only through one of these.
  static constexpr uintptr_t kWaitable = uintptr_t(1) << 59;
  void add_waitable(uintptr_t object, bool wrote) { add(object | kWaitable >> 1, wrote); }
  // Every tag an object's key may carry: a key without one is an atomic's or a variable's
  // address, or a pseudo-object's.
  static constexpr uintptr_t kTags = kLockOrder | kRelease | kWaitable;
  // Whether some object touched carries the tag (kLockOrder, kRelease, kWaitable).
  bool has_tagged(uintptr_t tag) const {
    for (uintptr_t o : objects)
      if (o & tag) return true;
    return false;
  }
  void add_lock_order(uintptr_t mutex, bool wrote) { add(mutex | kLockOrder >> 1, wrote); }
  void add_release(uintptr_t mutex, bool wrote) { add(mutex | kRelease >> 1, wrote); }

  void clear() {
    objects.clear();
    global = rewrote = var = moving = false;
  }
  void add(uintptr_t address, bool wrote) {
    const uintptr_t key = address << 1 | (wrote ? 1 : 0);
    for (uintptr_t& o : objects)
      if (o >> 1 == address) {
        rewrote = rewrote || (wrote && (o & 1));
        o |= key;
        return;
      }
    objects.push_back(key);
  }
  void merge(const Footprint& f) {
    global = global || f.global;
    var = var || f.var;
    moving = moving || f.moving;
    for (uintptr_t o : f.objects) add(o >> 1, o & 1);
  }
  // The object of a footprint that is one plain read of one object (an atomic's or a variable's,
  // no pseudo-object, no tag); 0 if it is anything else.
  uintptr_t sole_read() const {
    if (global || objects.size() != 1 || (objects[0] & 1)) return 0;
    const uintptr_t object = objects[0] >> 1;
    return (object & kTags >> 1) || object < kPseudoObjectsEnd ? 0 : object;
  }
  // Whether it reads some object of the program's (an atomic's or a variable's, untagged) without
  // writing it.
  bool reads_plain() const {
    for (uintptr_t o : objects)
      if (!(o & 1) && !(o & kTags) && o >> 1 >= kPseudoObjectsEnd) return true;
    return false;
  }
  // Whether it writes the object (untagged address).
  bool writes(uintptr_t object) const {
    for (uintptr_t o : objects)
      if (o >> 1 == object) return o & 1;
    return false;
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


// Relacy's record of the run's events (rl::context::history_): reached through the context's
// own protected member, from a derived class.
struct relacy_history : rl::context {
  static rl::history_mgr& of(rl::context& c) { return c.*(&relacy_history::history_); }
};
// Its list of entries, private to rl::history_mgr: defined in explore.cpp (how, there).
typedef rl::vector<rl::history_entry>::type relacy_entries;
const relacy_entries& entries_of(rl::history_mgr& h);

// How one type of event is read: what it adds to a footprint.
typedef void (*event_footprint_f)(const void* ev, Footprint& f);

// The event types read from their fields, each known by the function that prints it
// (history_entry::output_). Filled before main (verify/search/footprint_types.cpp); a type not in it
// is read from its printed text, which gives the same footprint, only slower.
class event_types {
 public:
  static event_types& all() {
    static event_types t;
    return t;
  }
  void add(rl::event_output_f key, event_footprint_f read) { read_[key] = read; }
  event_footprint_f find(rl::event_output_f key) const {
    const auto it = read_.find(key);
    return it == read_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<rl::event_output_f, event_footprint_f> read_;  // filled before main: no allocation inside iterations
};

// One event's object and access: from its fields when its type is known, else from its text.
class event_reader {
 public:
  event_reader() : text_(&line_) {}
  void read(const rl::history_entry& e, Footprint& f) {
    thread_ = e.thread_index_;
    const event_footprint_f known = event_types::all().find(e.output_);
    if (known && !check_fields) return known(e.ev_, f);
    formatted += !known;
    line_.reset();
    e.output_(text_, e.ev_);
    if (!known) return read_text(line_.str(), line_.cut(), f);
    Footprint by_fields, by_text;  // both readings of a known type, compared
    const bool announced = thread_ < 32 && g_blocking_lock[thread_];
    known(e.ev_, by_fields);
    if (thread_ < 32) g_blocking_lock[thread_] = announced;  // the second reading sees it too
    read_text(line_.str(), line_.cut(), by_text);
    fields_unlike_text +=
        by_fields.global != by_text.global || by_fields.var != by_text.var || by_fields.objects != by_text.objects;
    f.merge(by_fields);
  }
  uint64_t formatted = 0;           // events read from their text
  bool check_fields = false;        // read known types both ways (a test of the table)
  uint64_t fields_unlike_text = 0;  // events whose two readings differ
  static inline rl::thread_id_t thread_ = 0;  // the thread of the event being read

  // A mutex event (README, "Locks"): a lock takes the next place in the acquisition order after
  // the last release; an unlock releases, and changes the mutex for any other operation (a
  // try-lock's outcome, a shared lock); an attempt that blocks only reads the order (it changes
  // nothing until the unlock that wakes it, then it locks); any other operation does all three.
  // A lock not announced as blocking (model/rl_env.hpp) may be a try-lock that succeeded: it
  // read the mutex free, and races with the unlock before it (placed before it, it fails).
  enum class mutex_op { lock, unlock, blocked, other };
  static void read_mutex(mutex_op op, uintptr_t mutex, Footprint& f) {
    switch (op) {
      case mutex_op::lock:
        f.add_lock_order(mutex, true);
        f.add_release(mutex, false);
        if (thread_ >= 32 || !g_blocking_lock[thread_]) f.add(mutex, false);
        if (thread_ < 32) g_blocking_lock[thread_] = false;
        return;
      case mutex_op::unlock: f.add_release(mutex, true); f.add(mutex, true); return;
      case mutex_op::blocked: f.add_lock_order(mutex, false); return;
      case mutex_op::other: f.add_lock_order(mutex, true); f.add_release(mutex, true); f.add(mutex, true); return;
    }
  }
  static void read_mutex(const char* text, uintptr_t mutex, Footprint& f) {
    const mutex_op op = std::strcmp(text, "exclusive lock") == 0     ? mutex_op::lock
                        : std::strcmp(text, "exclusive unlock") == 0 ? mutex_op::unlock
                        : std::strcmp(text, "blocking") == 0         ? mutex_op::blocked
                                                                     : mutex_op::other;
    read_mutex(op, mutex, f);
  }

  // One event as Relacy prints it ("<ADDRESS> atomic load, ...", "seq_cst fence", ...).
  static void read_text(const char* ev, bool cut, Footprint& f) {
    if (cut) {  // what the event touched may be in the part not kept
      f.global = true;
      return;
    }
    // An object's event: atomic, variable, mutex, event, condition variable, semaphore, futex.
    // A seq_cst atomic orders through its own object only (relacy/thread.hpp), not the fences' order.
    if (ev[0] == '<') {
      const uintptr_t address = (uintptr_t)std::strtoull(ev + 1, nullptr, 16);
      const char* op = std::strchr(ev, '>');
      if (op && std::strncmp(op, "> mutex: ", 9) == 0) return read_mutex(op + 9, address, f);
      const bool reads = op && (std::strncmp(op, "> atomic load,", 14) == 0 || std::strncmp(op, "> load,", 7) == 0);
      bool plain = false;  // an atomic's or a variable's operation (relacy/atomic_events.hpp, rmw.hpp, var.hpp)
      for (const char* p : {"> atomic ", "> CAS ", "> exchange ", "> fetch_", "> load,", "> store,"})
        plain = plain || (op && std::strncmp(op, p, std::strlen(p)) == 0);
      if (plain) f.add(address, !reads);
      else f.add_waitable(address, true);  // an event, a semaphore, a condition variable, or unknown
      if (op && (std::strncmp(op, "> load,", 7) == 0 || std::strncmp(op, "> store,", 8) == 0)) f.var = true;
      return;
    }
    if (std::strstr(ev, "seq_cst fence")) f.add(kSeqCstOrder, true);  // joins seq_cst_fence_order_
    if (std::strncmp(ev, "memory allocation", 17) == 0 || std::strncmp(ev, "memory deallocation", 19) == 0) {
      f.add(kHeap, true);
      return;
    }
    // A yield changes other threads' priorities; WFMO waits on several objects at once.
    if (std::strncmp(ev, "yield(", 6) == 0 || std::strncmp(ev, "WFMO", 4) == 0) f.global = true;
    // Left: fences other than seq_cst (they change only the thread's own clocks), a thread
    // blocking itself or unblocking another (always in the step of the operation on the object
    // it waits on or signals, which is added above), and the model's own log lines.
  }

 private:
  // Fixed storage for one printed event: it is printed inside iterations, on Relacy's heap.
  class line_buffer : public std::streambuf {
   public:
    void reset() {
      setp(line_, line_ + sizeof line_ - 1);
      cut_ = false;
    }
    const char* str() {
      *pptr() = 0;
      return line_;
    }
    bool cut() const { return cut_; }

   protected:
    int_type overflow(int_type c) override {
      cut_ = true;
      return traits_type::not_eof(c);
    }

   private:
    char line_[1024];
    bool cut_ = false;
  };
  line_buffer line_;
  std::ostream text_;
};

// The events Relacy logged since the last read, added to a footprint.
//
// An object in a block of Relacy's heap is named by the block, not by its address: Relacy's
// heap recycles blocks through per-size caches and a ring of deferred frees that outlive the
// iteration, so the same object of the same run lies at another address in the next iteration
// (and in a worker forked later). A footprint that named it by address would miss a conflict
// with the same object met again elsewhere in the tree: a sleeper would never wake, a race would
// never be reversed (the "heap" programs of tests/reduction/ lost outcomes that way). The name
// is the block's owner (the set-up, or the thread that allocated it), its place in its owner's
// allocations in the iteration, and the offset in it: the same in every run that allocated it.
// An allocation Relacy did not log (operator new outside Relacy's new macro: vmaverify's own,
// verify/search/operator_new.cpp, logs it in relacy_or_malloc, explore.cpp; Relacy's inline one
// does not) is known only when it is freed: if some event of the iteration touched an object in
// it, `unnamed_objects` counts it, and the search cannot stand behind its verdict.
class history_reader {
 public:
  // Adds what the events logged since the last call touched. Returns whether the last of them
  // parked the thread (a blocked attempt whose operation completes in a later step).
  bool read(Footprint& f) {
    const relacy_entries& e = entries_of(relacy_history::of(rl::ctx()));
    bool parked = false;
    first_ = next_;
    in_setup_ = false;  // a step is a thread's
    for (; next_ < e.size(); next_++) {
      read_named(e[next_], f);
      note_heap(e, next_);
      parked = e[next_].output_ == &rl::event_output<rl::park_event>;
    }
    return parked;
  }
  // What the first event of the last read that touched anything touched: a step's own
  // operation (Relacy schedules before each), whatever the test's after() added to the run's
  // last step.
  void first_touch(Footprint& f) {
    const relacy_entries& e = entries_of(relacy_history::of(rl::ctx()));
    for (size_t k = first_; k < next_ && f.objects.empty() && !f.global; k++) read_named(e[k], f);
  }
  // Whether no event was logged since the last read: inside a step, its operation has not
  // logged its own yet (Relacy logs an operation's event after the choices inside it). The
  // load floor asks it so that a choice inside the test's after() (logged into the run's last
  // step) is never pruned; Relacy's after() makes no choices today, so the test only defends.
  bool nothing_new() const { return entries_of(relacy_history::of(rl::ctx())).size() == next_; }
  // Passes over the events logged so far (the set-up, which is no thread's step; at the end of
  // an iteration, what its after() and destructor did), noting the heap's blocks.
  void skip() {
    const relacy_entries& e = entries_of(relacy_history::of(rl::ctx()));
    for (; next_ < e.size(); next_++) note_heap(e, next_);
    in_setup_ = false;
  }
  // Relacy's record was cleared: a new iteration.
  void restart() {
    next_ = 0;
    blocks_.clear();
    std::fill_n(allocations_, kOwners, 0u);
    in_setup_ = true;
  }
  event_reader events;
  uint64_t unnamed_objects = 0;  // frees of unlogged blocks that held an object some event touched

 private:
  // A block's name: kBlockNames | owner << 40 | place << 24, plus the offset. Above every address
  // a program has (below 2^47), below the tags' bits (Footprint::kTags >> 1), above the pseudo-objects.
  static constexpr uintptr_t kBlockNames = uintptr_t(1) << 52;
  static constexpr unsigned kOwners = 256;  // the set-up (0) and threads 0..254 (1..255)
  static constexpr uintptr_t kMaxPlace = uintptr_t(1) << 16, kMaxOffset = uintptr_t(1) << 24;
  struct block {
    uintptr_t begin, end, name;  // name 0: too large to name (an object in it touches everything)
    bool freed;
  };

  // One event, a mutex's or an event's state named by its primitive (announced:
  // model/rl_env.hpp) and heap objects by their blocks.
  void read_named(const rl::history_entry& ev, Footprint& f) {
    scratch_.clear();
    events.read(ev, scratch_);
    // Only an event of a mutex or an event has tagged keys (and the mutex's own, untagged).
    const bool sync = scratch_.has_tagged(Footprint::kTags);
    scratch_.global = scratch_.global || g_sync_primitives_full;
    if (!sync && blocks_.empty()) return f.merge(scratch_);
    for (uintptr_t& o : scratch_.objects) {
      const uintptr_t tags = o & Footprint::kTags;
      uintptr_t object = (o & ~Footprint::kTags) >> 1;
      if (object < kPseudoObjectsEnd) continue;
      const uintptr_t primitive = sync ? primitive_of(object) : 0;
      if (primitive) object = primitive;
      else if (tags) scratch_.moving = true;  // a state named by the address Relacy gave it
      // Relacy's states are not in its heap's blocks; a primitive may be.
      const block* b = tags && !primitive ? nullptr : block_of(object);
      if (b && !b->name) scratch_.global = true;
      if (b && b->name) object = b->name + (object - b->begin);
      o = object << 1 | tags | (o & 1);
    }
    f.merge(scratch_);
  }
  // The primitive whose state Relacy keeps at this address, announced this iteration (the latest,
  // should a state be handed out again); 0 if none.
  static uintptr_t primitive_of(uintptr_t state) {
    for (unsigned k = g_sync_primitive_count; k-- > 0;)
      if (g_sync_primitives[k].state == state) return g_sync_primitives[k].primitive;
    return 0;
  }
  // The newest block holding the address (a freed block's address may be handed out again).
  const block* block_of(uintptr_t address) const {
    for (size_t k = blocks_.size(); k-- > 0;)
      if (address >= blocks_[k].begin && address < blocks_[k].end) return &blocks_[k];
    return nullptr;
  }
  void note_heap(const relacy_entries& e, size_t at) {
    if (e[at].output_ == &rl::event_output<rl::memory_alloc_event>) {
      const auto& ev = *static_cast<const rl::memory_alloc_event*>(e[at].ev_);
      const unsigned owner = in_setup_ ? 0 : std::min<unsigned>(e[at].thread_index_ + 1, kOwners - 1);
      const uintptr_t place = allocations_[owner]++;
      // An array's elements start a header further on (memory_alloc_event::output).
      const uintptr_t begin = (uintptr_t)ev.addr_, end = begin + ev.size_ + rl::alignment;
      const bool nameable = place < kMaxPlace && end - begin < kMaxOffset && owner < kOwners - 1;
      blocks_.push_back({begin, end, nameable ? kBlockNames | uintptr_t(owner) << 40 | place << 24 : 0, false});
    } else if (e[at].output_ == &rl::event_output<rl::memory_free_event>) {
      const uintptr_t p = (uintptr_t)static_cast<const rl::memory_free_event*>(e[at].ev_)->addr_;
      for (size_t k = blocks_.size(); k-- > 0;)
        if (!blocks_[k].freed && blocks_[k].begin >= p && blocks_[k].begin - p <= rl::alignment) {
          blocks_[k].freed = true;
          return;
        }
      // free(NULL) frees nothing; a pointer Relacy never handed out fails the run (its free()).
      if (p < 4096 || p % rl::alignment) return;
      // Allocated unlogged: its size is in Relacy's header before it (rl::memory_mgr::alloc).
      const size_t size = *reinterpret_cast<const size_t*>(p - rl::alignment);
      if (touched_between(e, at, p, p + size)) unnamed_objects++;
    }
  }
  // Whether an event before `at` in this iteration touched an object in [begin, end).
  bool touched_between(const relacy_entries& e, size_t at, uintptr_t begin, uintptr_t end) {
    bool announced[32];
    std::copy_n(g_blocking_lock, 32, announced);  // a mutex event's reading changes them
    const rl::thread_id_t thread = event_reader::thread_;
    bool inside = false;
    for (size_t k = 0; k < at && !inside; k++) {
      scratch_.clear();
      events.read(e[k], scratch_);
      for (uintptr_t o : scratch_.objects) {
        uintptr_t object = (o & ~Footprint::kTags) >> 1;
        const uintptr_t primitive = primitive_of(object);
        if (primitive) object = primitive;  // a mutex or event in the block: by its primitive
        else if (o & Footprint::kTags) continue;  // a state of Relacy's, in no block of its heap
        inside = inside || (object >= begin && object < end);
      }
    }
    std::copy_n(announced, 32, g_blocking_lock);
    event_reader::thread_ = thread;
    return inside;
  }
  size_t next_ = 0;
  size_t first_ = 0;  // the first event of the last read
  bool in_setup_ = true;
  unsigned allocations_[kOwners] = {};
  typename rl::vector<block>::type blocks_;  // this iteration's, in the order allocated
  Footprint scratch_;
};

}  // namespace exploration
