#include "tests/reduction/program.hpp"

#include <sstream>

namespace program {
namespace {

const char* const kKinds[] = {"load", "store",   "fetch_add", "exchange", "cas",   "fence", "lock", "unlock",
                              "trylock", "set", "reset", "wait", "read", "write", "rand", "yield",
                              "pdisable", "penable", "oncpu", "spin"};
const char* const kOrders[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};

enum class ObjectClass { none, atomic, var, mutex, event, task };

ObjectClass object_class(Kind k) {
  switch (k) {
    case Kind::load: case Kind::store: case Kind::fetch_add: case Kind::exchange: case Kind::cas: case Kind::spin:
      return ObjectClass::atomic;
    case Kind::oncpu: return ObjectClass::task;
    case Kind::lock: case Kind::unlock: case Kind::trylock: return ObjectClass::mutex;
    case Kind::set: case Kind::reset: case Kind::wait: return ObjectClass::event;
    case Kind::read: case Kind::write: return ObjectClass::var;
    default: return ObjectClass::none;
  }
}

std::string object_name(ObjectClass c, unsigned i) {
  switch (c) {
    case ObjectClass::atomic: return std::string(1, char('x' + i));
    case ObjectClass::var: return std::string(1, char('a' + i));
    case ObjectClass::mutex: return "m" + std::to_string(i);
    case ObjectClass::event: return "e" + std::to_string(i);
    case ObjectClass::task: return "T" + std::to_string(i);
    default: return "";
  }
}

bool object_index(ObjectClass c, const std::string& name, uint8_t* index) {
  const unsigned count[] = {0, kAtomics, kVars, kMutexes, kEvents, kMaxThreads};
  for (unsigned i = 0; i < count[(int)c]; i++)
    if (object_name(c, i) == name) {
      *index = (uint8_t)i;
      return true;
    }
  return false;
}

bool has_value(Kind k) {
  return k == Kind::store || k == Kind::exchange || k == Kind::cas || k == Kind::write || k == Kind::rand;
}
bool has_order(Kind k) { return (object_class(k) == ObjectClass::atomic && k != Kind::spin) || k == Kind::fence; }

// The orders C++ (and Relacy) allow for the operation.
bool order_allowed(Kind k, Order o) {
  if (o == Order::consume) return false;
  if (k == Kind::load) return o == Order::relaxed || o == Order::acquire || o == Order::seq_cst;
  if (k == Kind::store) return o == Order::relaxed || o == Order::release || o == Order::seq_cst;
  if (k == Kind::fence) return o != Order::relaxed;
  return true;
}
bool failure_allowed(Order success, Order failure) {
  if (failure == Order::relaxed) return true;
  if (failure == Order::acquire) return success == Order::acquire || success == Order::acq_rel || success == Order::seq_cst;
  return failure == Order::seq_cst && success == Order::seq_cst;
}

std::string op_text(const Op& op) {
  std::string s = kKinds[(int)op.kind];
  const ObjectClass c = object_class(op.kind);
  if (c != ObjectClass::none) s += " " + object_name(c, op.object);
  if (has_value(op.kind)) s += " " + std::to_string(op.value);
  if (has_order(op.kind)) s += std::string(" ") + kOrders[(int)op.order];
  if (op.kind == Kind::cas) s += std::string(" ") + kOrders[(int)op.failure];
  return s;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool parse_op(const std::string& text, Op* op, std::string* why) {
  std::istringstream in(text);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  if (w.empty()) return *why = "an empty operation", false;
  int kind = -1;
  for (int k = 0; k < (int)(sizeof kKinds / sizeof *kKinds); k++)
    if (w[0] == kKinds[k]) kind = k;
  if (kind < 0) return *why = "unknown operation '" + w[0] + "'", false;
  op->kind = (Kind)kind;
  const ObjectClass c = object_class(op->kind);
  const size_t want = 1 + (c != ObjectClass::none) + has_value(op->kind) + has_order(op->kind) + (op->kind == Kind::cas);
  if (w.size() != want) return *why = "'" + text + "': " + std::to_string(want - 1) + " operands expected", false;
  size_t at = 1;
  if (c != ObjectClass::none && !object_index(c, w[at++], &op->object))
    return *why = "'" + text + "': no such object '" + w[at - 1] + "'", false;
  if (has_value(op->kind)) {
    const std::string& v = w[at++];
    if (v.size() != 1 || v[0] < '0' || v[0] > '7') return *why = "'" + text + "': a value in [0, 7] expected", false;
    op->value = (uint8_t)(v[0] - '0');
    if (op->kind == Kind::rand && op->value < 2) return *why = "'" + text + "': rand needs a limit of 2 or more", false;
  }
  for (int pass = 0; pass < has_order(op->kind) + (op->kind == Kind::cas); pass++) {
    int o = -1;
    for (int k = 0; k < 6; k++)
      if (w[at] == kOrders[k]) o = k;
    if (o < 0) return *why = "'" + text + "': unknown memory order '" + w[at] + "'", false;
    (pass == 0 ? op->order : op->failure) = (Order)o;
    at++;
  }
  if (has_order(op->kind) && !order_allowed(op->kind, op->order))
    return *why = "'" + text + "': a memory order this operation cannot take", false;
  if (op->kind == Kind::cas && !failure_allowed(op->order, op->failure))
    return *why = "'" + text + "': a failure order stronger than the success order", false;
  return true;
}

template <class T>
const T& pick(std::mt19937_64& rng, std::initializer_list<T> from) {
  return from.begin()[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
}

Op atomic_op(std::mt19937_64& rng) {
  Op op;
  const unsigned r = std::uniform_int_distribution<unsigned>(0, 99)(rng);
  op.kind = r < 35 ? Kind::load : r < 70 ? Kind::store : r < 80 ? Kind::fetch_add : r < 88 ? Kind::exchange : Kind::cas;
  op.object = (uint8_t)std::uniform_int_distribution<unsigned>(0, kAtomics - 1)(rng);
  op.value = (uint8_t)std::uniform_int_distribution<unsigned>(op.kind == Kind::cas ? 0 : 1, 2)(rng);
  if (op.kind == Kind::load) op.order = pick(rng, {Order::relaxed, Order::relaxed, Order::acquire, Order::seq_cst});
  else if (op.kind == Kind::store) op.order = pick(rng, {Order::relaxed, Order::relaxed, Order::release, Order::seq_cst});
  else op.order = pick(rng, {Order::relaxed, Order::acquire, Order::release, Order::acq_rel, Order::seq_cst});
  if (op.kind == Kind::cas)
    do op.failure = pick(rng, {Order::relaxed, Order::acquire, Order::seq_cst});
    while (!failure_allowed(op.order, op.failure));
  return op;
}

Op simple(Kind k, unsigned object = 0, unsigned value = 0) {
  Op op;
  op.kind = k;
  op.object = (uint8_t)object;
  op.value = (uint8_t)value;
  return op;
}

// One generated step of a task on a CPU: a preempt-disabled section, owner_on_cpu of a task
// or a spin loop. False (nothing generated) for an ordinary step instead.
bool generate_cpu_step(std::mt19937_64& rng, unsigned threads, std::vector<Op>& code) {
  std::uniform_int_distribution<unsigned> percent(0, 99);
  const unsigned r = percent(rng);
  if (r < 15) {
    code.push_back(simple(Kind::pdisable));
    code.push_back(atomic_op(rng));
    if (percent(rng) < 50) code.push_back(atomic_op(rng));
    code.push_back(simple(Kind::penable));
    return true;
  }
  if (r < 25) return code.push_back(simple(Kind::oncpu, std::uniform_int_distribution<unsigned>(0, threads - 1)(rng))), true;
  if (r < 35) return code.push_back(simple(Kind::spin, std::uniform_int_distribution<unsigned>(0, kAtomics - 1)(rng))), true;
  return false;
}

// One generated step of a thread: an operation or, with `blocking`, a critical section.
// With `cpus` no unprotected variable: a program that can livelock must not also race.
void generate_step(std::mt19937_64& rng, bool blocking, bool cpus, std::vector<Op>& code) {
  std::uniform_int_distribution<unsigned> percent(0, 99), two(0, 1);
  const unsigned r = percent(rng);
  if (r < 45) return code.push_back(atomic_op(rng));
  if (r < 53) {
    Op f = simple(Kind::fence);
    f.order = pick(rng, {Order::acquire, Order::release, Order::acq_rel, Order::seq_cst, Order::seq_cst});
    return code.push_back(f);
  }
  if (r < 68) {
    if (!blocking && cpus) return code.push_back(atomic_op(rng));
    if (!blocking) {  // an unprotected variable: racy
      const unsigned v = two(rng);
      return code.push_back(two(rng) ? simple(Kind::write, v, 1 + two(rng)) : simple(Kind::read, v));
    }
    // A critical section: variable a under m0, b under m1, sometimes the other mutex inside.
    const unsigned m = two(rng);
    code.push_back(simple(Kind::lock, m));
    const unsigned inner = percent(rng);
    if (inner < 20) {
      code.push_back(simple(Kind::lock, 1 - m));
      code.push_back(simple(Kind::write, 1 - m, 1 + two(rng)));
      code.push_back(simple(Kind::unlock, 1 - m));
    } else if (inner < 70) {
      code.push_back(two(rng) ? simple(Kind::write, m, 1 + two(rng)) : simple(Kind::read, m));
    } else {
      code.push_back(atomic_op(rng));
    }
    return code.push_back(simple(Kind::unlock, m));
  }
  if (r < 73) {  // a try-lock: no variable behind it, it may have failed
    const unsigned m = two(rng);
    code.push_back(simple(Kind::trylock, m));
    code.push_back(atomic_op(rng));
    return code.push_back(simple(Kind::unlock, m));
  }
  if (r < 81) return code.push_back(simple(Kind::set, two(rng)));
  if (r < 85) return code.push_back(simple(Kind::reset, two(rng)));
  if (r < 93 && blocking) return code.push_back(simple(Kind::wait, two(rng)));
  if (r < 96) return code.push_back(simple(Kind::rand, 0, 2 + two(rng)));
  if (r < 98) return code.push_back(simple(Kind::spin, std::uniform_int_distribution<unsigned>(0, kAtomics - 1)(rng)));
  if (r < 99 || !blocking) return code.push_back(atomic_op(rng));
  return code.push_back(simple(Kind::yield));
}

}  // namespace

bool returns_value(Kind k) {
  return k == Kind::load || k == Kind::fetch_add || k == Kind::exchange || k == Kind::cas || k == Kind::trylock ||
         k == Kind::read || k == Kind::rand || k == Kind::oncpu || k == Kind::spin;
}

unsigned Program::registers(unsigned t) const {
  unsigned n = 0;
  for (const Op& op : code[t]) n += returns_value(op.kind);
  return n;
}
unsigned Program::register_count() const {
  unsigned n = 0;
  for (unsigned t = 0; t < threads; t++) n += registers(t);
  return n;
}
bool Program::blocks() const {
  for (unsigned t = 0; t < threads; t++)
    for (const Op& op : code[t])
      if (op.kind == Kind::lock || op.kind == Kind::wait) return true;
  return false;
}

std::string Program::text() const {
  std::ostringstream s;
  for (unsigned e = 0; e < kEvents; e++)
    if (manual_reset[e] || initially_set[e])
      s << "event e" << e << (manual_reset[e] ? " manual " : " auto ") << initially_set[e] << "\n";
  if (finals) s << "finals\n";
  if (heap != Heap::none) s << (heap == Heap::logged ? "heap\n" : "heap unlogged\n");
  if (sync_named) s << "sync named\n";
  if (symmetric) s << "twins\n";
  if (has_cpus()) {
    s << "cpus";
    for (unsigned t = 0; t < threads; t++) s << " " << cpu_of[t] << (rt[t] ? "r" : "");
    s << "\n";
  }
  for (unsigned t = 0; t < threads; t++) {
    s << "T" << t << ":";
    for (size_t i = 0; i < code[t].size(); i++) s << (i ? "; " : " ") << op_text(code[t][i]);
    s << "\n";
  }
  return s.str();
}

std::string outcome_text(const Program& p, uint64_t outcome) {
  std::string s;
  unsigned shift = 0;
  for (unsigned t = 0; t < p.threads; t++) {
    s += (t ? " T" : "T") + std::to_string(t) + "=";
    for (unsigned r = 0; r < p.registers(t); r++, shift += 4)
      s += (r ? "," : "") + std::to_string((outcome >> shift) & 15);
  }
  if (p.finals)
    for (unsigned a = 0; a < kAtomics; a++)
      s += " " + object_name(ObjectClass::atomic, a) + "=" + std::to_string((outcome >> (48 + 4 * a)) & 15);
  return s;
}

bool parse(const std::string& text, Program* p, std::string* error, std::vector<std::string>* expected) {
  *p = Program();
  std::istringstream in(text);
  std::string line;
  int n = 0;
  unsigned threads = 0, cpus_given = 0;
  const auto fail = [&](const std::string& why) {
    *error = "line " + std::to_string(n) + ": " + why;
    return false;
  };
  while (std::getline(in, line)) {
    n++;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line == "finals") {
      p->finals = true;
    } else if (line == "heap" || line == "heap unlogged") {
      p->heap = line == "heap" ? Heap::logged : Heap::unlogged;
    } else if (line == "sync named") {
      p->sync_named = true;
    } else if (line == "twins") {
      p->symmetric = true;
    } else if (line.rfind("cpus ", 0) == 0) {
      std::istringstream w(line.substr(5));
      unsigned t = 0;
      for (std::string c; w >> c; t++) {
        if (t == kMaxThreads || c.empty() || c[0] < '0' || c[0] > '1' || c.size() > 2 || (c.size() == 2 && c[1] != 'r'))
          return fail("'cpus' wants a CPU (0 or 1, r for SCHED_FIFO) for each thread");
        p->cpu_of[t] = c[0] - '0';
        p->rt[t] = c.size() == 2;
      }
      cpus_given = t;
    } else if (line.rfind("event ", 0) == 0) {
      std::istringstream w(line.substr(6));
      std::string name, mode;
      int set = -1;
      uint8_t e;
      w >> name >> mode >> set;
      if (!object_index(ObjectClass::event, name, &e) || (mode != "auto" && mode != "manual") || (set != 0 && set != 1))
        return fail("'event E auto|manual 0|1' expected");
      p->manual_reset[e] = mode == "manual";
      p->initially_set[e] = set == 1;
    } else if (line.rfind("expect:", 0) == 0) {
      if (!expected) return fail("an expected outcome set outside a litmus file");
      std::string rest = line.substr(7);
      for (size_t at = 0; at <= rest.size();) {
        const size_t bar = rest.find('|', at);
        const std::string o = trim(rest.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
        if (o.empty()) return fail("an empty expected outcome");
        expected->push_back(o);
        if (bar == std::string::npos) break;
        at = bar + 1;
      }
    } else if (line.size() >= 3 && line[0] == 'T' && line[2] == ':' && line[1] - '0' == (int)threads) {
      if (threads == kMaxThreads) return fail("more than " + std::to_string(kMaxThreads) + " threads");
      std::string rest = line.substr(3);
      for (size_t at = 0; at < rest.size();) {
        const size_t semi = rest.find(';', at);
        Op op;
        std::string why;
        if (!parse_op(trim(rest.substr(at, semi == std::string::npos ? std::string::npos : semi - at)), &op, &why))
          return fail(why);
        p->code[threads].push_back(op);
        if (semi == std::string::npos) break;
        at = semi + 1;
      }
      threads++;
    } else {
      return fail("'" + line + "': a thread (T" + std::to_string(threads) + ": ...), event, finals, heap, sync named, twins, cpus or expect: line expected");
    }
  }
  if (threads < 2) return fail("two threads or more expected");
  p->threads = threads;
  if (cpus_given && cpus_given != threads) return fail("'cpus' gives " + std::to_string(cpus_given) + " CPUs for " + std::to_string(threads) + " threads");
  if (cpus_given && p->symmetric) return fail("tasks on CPUs have no twins");
  if (p->register_count() > kMaxRegisters) return fail("more than " + std::to_string(kMaxRegisters) + " registers");
  if (p->symmetric && !(p->code[0] == p->code[1])) return fail("twins: T1 must run T0's code");
  return true;
}

// One generated step of a fenced program (generate).
void generate_fenced_step(std::mt19937_64& rng, bool blocking, std::vector<Op>& code) {
  std::uniform_int_distribution<unsigned> percent(0, 99), two(0, 1);
  const unsigned r = percent(rng);
  if (r < 33) {
    Op f = simple(Kind::fence);
    f.order = Order::seq_cst;
    return code.push_back(f);
  }
  if (r < 90 || blocking) return code.push_back(atomic_op(rng));
  const unsigned v = two(rng);
  return code.push_back(two(rng) ? simple(Kind::write, v, 1 + two(rng)) : simple(Kind::read, v));
}

Program generate(std::mt19937_64& rng, bool blocking, bool cpus, bool fenced) {
  Program p;
  const unsigned r = std::uniform_int_distribution<unsigned>(0, 99)(rng);
  p.threads = r < 50 ? 2 : r < 85 ? 3 : 4;
  const unsigned max_steps = (p.threads == 2 ? 4 : p.threads == 3 ? 3 : 2) + (fenced ? 1 : 0);
  std::uniform_int_distribution<unsigned> percent(0, 99);
  if (cpus) {  // two CPUs, each thread on either, a third of them SCHED_FIFO
    for (unsigned t = 0; t < p.threads; t++) {
      p.cpu_of[t] = (int)(percent(rng) % 2);
      p.rt[t] = percent(rng) < 33;
    }
  }
  for (unsigned e = 0; e < kEvents; e++) {
    p.manual_reset[e] = percent(rng) < 25;
    p.initially_set[e] = percent(rng) < 20;
  }
  p.finals = percent(rng) < 50;
  p.symmetric = !cpus && p.threads <= 3 && percent(rng) < 30;
  for (unsigned t = 0; t < p.threads; t++) {
    if (t == 1 && p.symmetric) {
      p.code[1] = p.code[0];
      continue;
    }
    const unsigned steps = std::uniform_int_distribution<unsigned>(1, max_steps)(rng);
    for (unsigned s = 0; s < steps; s++) {
      std::vector<Op> step;
      if (fenced) generate_fenced_step(rng, blocking, step);
      else if (!cpus || !generate_cpu_step(rng, p.threads, step)) generate_step(rng, blocking, cpus, step);
      Program with = p;
      with.code[t].insert(with.code[t].end(), step.begin(), step.end());
      if (p.symmetric && t == 0) with.code[1] = with.code[0];
      if (with.register_count() > kMaxRegisters) break;
      p.code[t] = with.code[t];
    }
  }
  return p;
}

unsigned op_count(const Program& p) {
  unsigned n = 0;
  for (unsigned t = 0; t < p.threads; t++) n += (unsigned)p.code[t].size();
  return n;
}

bool without_op(const Program& p, unsigned index, Program* out) {
  *out = p;
  for (unsigned t = 0; t < p.threads; t++) {
    if (index >= p.code[t].size()) {
      index -= (unsigned)p.code[t].size();
      continue;
    }
    std::vector<Op>& c = out->code[t];
    const Op removed = c[index];
    c.erase(c.begin() + index);
    if (removed.kind == Kind::lock || removed.kind == Kind::trylock)  // its unlock goes too
      for (size_t i = index; i < c.size(); i++)
        if (c[i].kind == Kind::unlock && c[i].object == removed.object) {
          c.erase(c.begin() + (long)i);
          break;
        }
    if (removed.kind == Kind::pdisable)  // its preempt_enable goes too
      for (size_t i = index; i < c.size(); i++)
        if (c[i].kind == Kind::penable) {
          c.erase(c.begin() + (long)i);
          break;
        }
    if (removed.kind == Kind::unlock || removed.kind == Kind::penable) return false;  // kept with its lock
    if (p.symmetric && t <= 1) out->code[1 - t] = c;
    if (c.empty()) {  // a thread with nothing left goes, the later ones move up
      if (p.threads == 2) return false;
      for (unsigned u = t; u + 1 < p.threads; u++) {
        out->code[u] = out->code[u + 1];
        out->cpu_of[u] = out->cpu_of[u + 1];
        out->rt[u] = out->rt[u + 1];
      }
      out->code[p.threads - 1].clear();
      out->cpu_of[p.threads - 1] = -1;
      out->rt[p.threads - 1] = false;
      out->threads--;
      if (p.symmetric && t <= 1) return false;
    }
    return true;
  }
  return false;
}

}  // namespace program
