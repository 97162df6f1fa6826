#include "verify/report/trace.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include "model/mutants.hpp"
#include "model/trace_names.hpp"
#include "verify/cli/cli.hpp"
#include "verify/report/json_out.hpp"
#include "verify/report/trace_state.hpp"
#include "verify/model_hash.hpp"
#include "verify/search/scenario.hpp"

namespace {

// "/any/where/model/mm.cpp" -> "model/mm.cpp": traces name project files, not machine paths.
std::string project_relative(const std::string& path) {
  for (const char* dir : {"/model/", "/verify/", "/proofs/", "/tests/", "/relacy/"}) {
    size_t at = path.rfind(dir);
    if (at != std::string::npos) return path.substr(at + 1);
  }
  return path;
}

bool is_bookkeeping(const std::string& text) {
  return text.size() > 1 && text[0] == '[' && text.back() == ']' && text != "[THREAD FINISHED]";
}

// Relacy's "key=value" fields of an event (atomic_events.hpp, var.hpp, memory.hpp); the
// operation is what precedes the first of them. Messages (asserts) are never split: their
// commas are theirs.
const std::regex& relacy_field_re() {
  static const std::regex re(R"((^|, | )(value|orig|cmp|xchg|prev|arg|new|order|size)=([^,]*))");
  return re;
}

std::string field(const std::string& fields, const std::string& key) {
  for (std::sregex_iterator m(fields.begin(), fields.end(), relacy_field_re()), end; m != end; ++m)
    if ((*m)[2] == key) {
      std::string v = (*m)[3];
      size_t tag = v.find(" [");  // "3 [NOT CURRENT]"
      return tag == std::string::npos ? v : v.substr(0, tag);
    }
  return "";
}

// A raw value in the terms of the object it was read from or written to.
std::string decode_value(const std::string& object, const std::string& raw) {
  if (raw.empty()) return raw;
  unsigned long long v = std::strtoull(raw.c_str(), nullptr, 0);
  // model/page_tables.hpp's table_state, in an entry's word (not a table's PTEs or share count).
  if (object.find(" entry -> ") != std::string::npos)
    return v == 0 ? "none" : v == 1 ? "present" : v == 2 ? "FREED" : v == 3 ? "RETRACTED" : raw;
  if (object.rfind("i_mmap of", 0) == 0) {
    std::string set;
    for (int i = 0; i < 32; i++)
      if (v >> i & 1) set += (set.empty() ? "vma " : ", vma ") + std::to_string(i);
    return "{" + set + "}";
  }
  if (object.rfind("count of", 0) == 0) {  // model/rwsem_count.hpp, as in kernel/locking/rwsem.c
    std::string d;
    if (v & 1) d += "|WRITER";
    if (v & 2) d += "|WAITERS";
    if (v & 4) d += "|HANDOFF";
    if (v >> 63) d += "|READ_FAILED";
    if (unsigned long long readers = (v & ~(1ULL << 63)) >> 8) d += "|readers=" + std::to_string(readers);
    return d.empty() ? "0" : d.substr(1);
  }
  // struct list_head links (model/kshim/rwsem.h): the list_head they point to, by name.
  if (object.find("wait_list.") != std::string::npos || object.rfind("waiter.list.", 0) == 0) {
    if (v == 0x100 || v == 0x122) return v == 0x100 ? "LIST_POISON1" : "LIST_POISON2";
    const char* name = trace_name_of(reinterpret_cast<const void*>(v));
    return name ? name : raw;
  }
  // sem->owner (kernel/locking/rwsem.c): a task pointer and the flags in its low bits.
  if (object.rfind("owner of ", 0) == 0 && v > 7) {
    const char* name = trace_name_of(reinterpret_cast<const void*>(v & ~7ULL));
    if (!name) return raw;
    return std::string(name) + (v & 1 ? "|READER_OWNED" : "") + (v & 2 ? "|NONSPINNABLE" : "");
  }
  if (object.rfind("waiter.task", 0) == 0) {
    const char* name = trace_name_of(reinterpret_cast<const void*>(v));
    return v == 0 ? "NULL (granted)" : name ? name : raw;
  }
  return raw;
}

// The operation and value columns of one Relacy event text (after its address).
void describe(const std::string& text, TraceEvent* e) {
  std::smatch k;
  if (text.rfind("batch ", 0) == 0 && text.find(": ") != std::string::npos) {  // model/mm.cpp's log_batch_step
    e->object = "the batch";
    e->operation = text.substr(0, text.find(": "));
    e->value = text.substr(text.find(": ") + 2);
    return;
  }
  if (text.rfind("task: ", 0) == 0) {  // model/mm.cpp's log_task: what this task is
    e->operation = "task";
    e->value = text.substr(6);
    return;
  }
  if (!std::regex_search(text, k, relacy_field_re())) {
    // "USER ASSERT FAILED (message)": the message, commas and all, is the value.
    static const std::regex verdict(R"(^([A-Z][A-Z ]+[A-Z]) \((.*)\)$)");
    std::smatch m;
    if (std::regex_match(text, m, verdict)) {
      std::string op = m[1];
      std::transform(op.begin(), op.end(), op.begin(), ::tolower);
      e->operation = op;
      e->value = m[2];
    } else {
      e->operation = text;
    }
    return;
  }
  std::string op = text.substr(0, k.position(0)), fields = text.substr(k.position(0));
  auto d = [&](const char* key) { return decode_value(e->object, field(fields, key)); };
  e->order = field(fields, "order");
  if (op.rfind("CAS ", 0) == 0) {
    // Relacy's "[ABA]" tag (the value changed and came back since this thread last saw it)
    // says nothing the expected/found values do not: dropped.
    bool ok = op.find("succ") != std::string::npos, spurious = op.find("SPURIOUS") != std::string::npos;
    e->operation = ok ? "compare-exchange" : spurious ? "compare-exchange (failed spuriously)" : "compare-exchange (failed)";
    e->value = "expected " + d("cmp") + "; found " + d("orig") + (ok ? "; new " + d("xchg") : "; not replaced");
  } else {
    e->operation = op;
    e->value = !field(fields, "new").empty() ? d("prev") + " -> " + d("new") : d("value");
  }
  if (fields.find("[NOT CURRENT]") != std::string::npos) e->value += " (stale: not the latest store)";
}

// FNV-1a, 64 bits, in hex: to notice change, not to resist forgery.
struct Fnv {
  unsigned long long h = 1469598103934665603ULL;
  void add(const char* p, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
  }
  std::string hex() const {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", h);
    return b;
  }
};

}  // namespace

std::string trace_fingerprint(const RunResult& r) {
  Fnv f;
  for (const std::string* s : {&r.scenario, &r.mutant, &r.variant, &r.search, &r.state}) f.add(s->c_str(), s->size() + 1);
  return f.hex();
}

TraceOrigin current_origin() {
  static const TraceOrigin o = [] {
    TraceOrigin t{VMAVERIFY_MODEL_HASH, "unknown"};
    std::ifstream exe("/proc/self/exe", std::ios::binary);
    if (!exe) return t;
    Fnv f;
    char buf[1 << 16];
    while (exe.read(buf, sizeof buf) || exe.gcount() > 0) f.add(buf, (size_t)exe.gcount());
    t.binary_hash = f.hex();
    return t;
  }();
  return o;
}

bool row_writes(const TraceEvent& e) {
  const std::string& o = e.operation;
  return o.find("store") != std::string::npos || o.find("fetch_") != std::string::npos ||
         (o.find("exchange") != std::string::npos && o.find("failed") == std::string::npos);
}

// A stale load says why: the store it missed, by another task, comes later in the object's
// order, and nothing (no release/acquire pair, no lock) makes it happen before the load.
static void explain_stale_reads(std::vector<TraceEvent>* events) {
  static const std::string kStale = " (stale: not the latest store)";
  for (size_t i = 0; i < events->size(); i++) {
    TraceEvent& e = (*events)[i];
    if (e.value.size() < kStale.size() || e.value.compare(e.value.size() - kStale.size(), kStale.size(), kStale) != 0)
      continue;
    for (size_t j = i; j-- > 0;) {
      const TraceEvent& w = (*events)[j];
      if (w.object != e.object || !row_writes(w)) continue;
      if (w.thread != e.thread)
        e.value = e.value.substr(0, e.value.size() - kStale.size()) + " (stale: T" + std::to_string(w.thread) +
                  "'s store at step " + std::to_string(w.step) + " is later and does not happen before this load)";
      break;
    }
  }
}

std::vector<TraceEvent> parse_relacy_history(const std::string& output) {
  std::vector<TraceEvent> events;
  std::istringstream in(output);
  std::string line;
  bool in_history = false, set_up = false;
  std::set<int> seen, finished;
  // "[12] 1: <0x55..> atomic load, value=3, order=acquire, in rwsem_down_read_slowpath, /p/model/x.hpp(249)"
  static const std::regex event_re(R"(^\[(\d+)\] (\d+): (.*), in ([^,]+), (.*)\((\d+)\)$)");
  static const std::regex addr_re(R"(^<(0x[0-9a-f]+|0)> ?(.*)$)");
  while (std::getline(in, line)) {
    if (line.rfind("execution history", 0) == 0) {
      in_history = true;
      continue;
    }
    if (!in_history) continue;
    if (line.empty()) break;  // the per-thread listing that follows repeats the same events
    std::smatch m;
    if (!std::regex_match(line, m, event_re)) continue;
    std::string text = m[3];
    if (text == "[CTOR BEGIN]") set_up = true;
    if (text == "[BEFORE END]") {
      set_up = false;
      continue;
    }
    if (set_up || is_bookkeeping(text)) continue;
    TraceEvent e;
    e.step = std::atoi(m[1].str().c_str());
    e.thread = std::atoi(m[2].str().c_str());
    e.function = m[4];
    e.source = project_relative(m[5]) + ":" + m[6].str();
    std::smatch a;
    if (std::regex_match(text, a, addr_re)) {
      const void* addr = reinterpret_cast<const void*>(std::strtoull(a[1].str().c_str(), nullptr, 16));
      const char* name = trace_name_of(addr);
      e.object = name ? name : a[1].str();
      text = a[2];
    }
    describe(text, &e);
    if (text == "[THREAD FINISHED]") {
      finished.insert(e.thread);
      e.operation = "thread finished";
      e.function = e.source = "";  // Relacy's own code, not the model's
    }
    seen.insert(e.thread);
    events.push_back(e);
  }
  if (events.empty()) return events;
  explain_stale_reads(&events);
  TraceEvent& failing = events.back();
  failing.failing = true;
  // Every thread had finished: the check that failed ran at the end of the run, in no thread.
  bool all_finished = !finished.empty() && std::includes(finished.begin(), finished.end(), seen.begin(), seen.end());
  if (all_finished || failing.source.rfind("relacy/", 0) == 0) {
    failing.thread = kEndOfRun;
    if (failing.source.rfind("relacy/", 0) == 0) failing.function = failing.source = "";
  }
  return events;
}

// Each thread's part, by the model functions it ran (kernel names), in order of first appearance.
static std::string thread_roles(const std::vector<TraceEvent>& events) {
  std::map<int, std::vector<std::string>> ran;
  for (const TraceEvent& e : events) {
    if (e.thread == kEndOfRun || e.function.empty()) continue;
    auto& f = ran[e.thread];
    if (std::find(f.begin(), f.end(), e.function) == f.end()) f.push_back(e.function);
  }
  std::string t;
  for (const auto& th : ran) {
    t += "  T" + std::to_string(th.first) + " ran:";
    for (size_t i = 0; i < th.second.size() && i < 6; i++) t += (i ? ", " : " ") + th.second[i];
    t += th.second.size() > 6 ? ", ...\n" : "\n";
  }
  return t;
}

static bool is_relacy_internal(const TraceEvent& e) { return e.operation.rfind("event: ", 0) == 0; }

// The columns a cell takes on a terminal: its UTF-8 characters (a chain's "→" is three bytes).
static size_t columns(const std::string& cell) {
  size_t n = 0;
  for (unsigned char c : cell) n += (c & 0xC0) != 0x80;
  return n;
}

// The row's call chain and, when it is not the chain's last frame, the function the row ran in
// (a helper of the model's or the shim's: Relacy names the function of the access).
static std::string chain_of(const TraceEvent& e) {
  if (e.chain.empty()) return e.function;
  const size_t last = e.chain.rfind(" → ");
  const std::string innermost = last == std::string::npos ? e.chain : e.chain.substr(last + 5);
  return e.function.empty() || e.function == innermost ? e.chain : e.chain + " → " + e.function;
}

std::string trace_text(const RunResult& r, bool raw, bool chains) {
  std::string t = "counterexample: " + r.kind + ": " + r.message + "\n";
  t += "scenario " + r.scenario + ", mutant " + r.mutant + ", " + r.variant + ", search " + r.search + "\n";
  const Scenario* s = find_scenario(r.scenario);
  t += "legend: " + (s ? s->description : std::string("(unknown scenario)")) + "\n";
  t += thread_roles(r.events);
  t += "  'end': a check made at the end of the run, once every thread had finished (or found none runnable).\n";
  t += "  Set-up steps (constructors) are hidden" +
       std::string(raw ? "." : "; so are Relacy's internal event rows (--raw shows them).") + "\n";
  t += "  state: after the row, the batch, the locks held, the rw_semaphores' count words and wait lists,\n"
       "  and the page tables the run wrote (verify/README.md, \"Counterexample traces\").\n";
  if (chains) t += "  function: the kernel call chain the row ran in, outermost first, then the function itself.\n";
  std::vector<std::vector<std::string>> rows = {
      {"", "step", "thr", "function", "object", "operation", "value", "order", "source", "state"}};
  TraceState state;
  for (const TraceEvent& e : r.events) {
    state.apply(e);
    if (!raw && !e.failing && is_relacy_internal(e)) continue;
    rows.push_back({e.failing ? ">>" : "", std::to_string(e.step),
                    e.thread == kEndOfRun ? "end" : "T" + std::to_string(e.thread),
                    chains ? chain_of(e) : e.function, e.object, e.operation, e.value, e.order, e.source,
                    state.summary()});
  }
  // Columns as wide as their widest cell (object names can be long), but for the failing
  // row: its message, whole, would push every row's order and source far right.
  std::vector<size_t> width(rows[0].size(), 0);
  width[0] = 2;  // ">>"
  for (const auto& row : rows)
    if (row[0].empty())
      for (size_t c = 0; c < row.size(); c++) width[c] = std::max(width[c], columns(row[c]));
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); c++) {
      std::string cell = row[c];
      if (c + 1 < row.size() && columns(cell) < width[c]) cell.append(width[c] - columns(cell), ' ');
      line += (c ? " " : "") + cell;
    }
    t += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
  }
  return t;
}

// What the search did before it failed (the HTML report shows it): iterations, seconds and the
// scenario's figures.
static Json search_statistics(const RunResult& r) {
  Json s = {{"iterations", r.iterations}, {"seconds", r.seconds}};
  for (const auto& kv : r.stats) s[kv.first] = kv.second;
  return s;
}

std::string trace_json(const RunResult& r) {
  Json events = Json::array();
  for (const TraceEvent& e : r.events)
    events.push_back({{"step", e.step},         {"thread", e.thread}, {"function", e.function},
                      {"object", e.object},     {"operation", e.operation}, {"value", e.value},
                      {"order", e.order},       {"source", e.source}, {"chain", e.chain},
                      {"failing", e.failing}});
  Json j = {{"schema", kTraceSchema}, {"scenario", r.scenario}, {"mutant", r.mutant}, {"variant", r.variant},
            {"search", r.search},     {"state", r.state},       {"result", r.result}, {"kind", r.kind},
            {"message", r.message},   {"failing_step", r.failing_step},
            {"model_hash", current_origin().model_hash}, {"binary_hash", current_origin().binary_hash},
            {"fingerprint", trace_fingerprint(r)}, {"statistics", search_statistics(r)}, {"events", events}};
  if (!r.source_lines.empty()) {
    Json files = Json::object();
    for (const auto& f : r.source_lines)
      for (const auto& l : f.second) files[f.first][std::to_string(l.first)] = l.second;
    j["source_lines"] = files;
  }
  // Indented: a trace is also read by people (and diffed).
  return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

// Writes text to a new temporary file beside `file`; its name in *tmp. False with *err (errno's
// words: a full disk says "No space left on device") and no file left behind on failure.
bool write_temporary(const std::string& file, const std::string& text, std::string* tmp, std::string* err) {
  std::string name = file + ".XXXXXX";
  int fd = mkstemp(&name[0]);
  if (fd < 0) {
    *err = "cannot write trace file '" + file + "': " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += (size_t)n;
  }
  int saved = done == text.size() ? 0 : errno ? errno : EIO;
  if (close(fd) != 0 && !saved) saved = errno;
  if (saved) {
    unlink(name.c_str());
    *err = "cannot write trace file '" + file + "': " + std::strerror(saved);
    return false;
  }
  *tmp = name;
  return true;
}

// A trace replaces only a regular file (or nothing): never a device, FIFO or directory.
bool may_replace(const std::string& path, std::string* err) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return true;
  *err = "cannot write trace file '" + path + "': exists and is not a regular file";
  return false;
}

}  // namespace

bool write_trace(const std::string& file, const RunResult& r, std::string* err, bool raw, bool chains) {
  const std::string text_file = file + ".txt";
  if (!may_replace(file, err) || !may_replace(text_file, err)) return false;
  // Both written in full to temporary files first, then renamed: no empty or partial trace.
  std::string json_tmp, text_tmp;
  if (!write_temporary(file, trace_json(r), &json_tmp, err)) return false;
  if (!write_temporary(file, trace_text(r, raw, chains), &text_tmp, err)) {
    unlink(json_tmp.c_str());
    return false;
  }
  if (rename(json_tmp.c_str(), file.c_str()) != 0 || rename(text_tmp.c_str(), text_file.c_str()) != 0) {
    *err = "cannot write trace file '" + file + "': " + std::strerror(errno);
    unlink(json_tmp.c_str());
    unlink(text_tmp.c_str());
    return false;
  }
  return true;
}

namespace {

// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string library_message(const nlohmann::json::exception& e) {
  std::string m = e.what();
  size_t tag_end = m.find("] ");
  return m[0] == '[' && tag_end != std::string::npos ? m.substr(tag_end + 2) : m;
}

bool not_a_trace(const std::string& file, const std::string& why, std::string* err) {
  *err = file + ": not a vmaverify trace (" + why + ")";
  return false;
}

}  // namespace

bool read_trace(const std::string& file, RunResult* r, std::string* err, TraceOrigin* origin, std::string* fingerprint) {
  // stat before opening: opening a FIFO would wait for a writer.
  struct stat st;
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = "cannot read trace file '" + file + "'" + (access(file.c_str(), F_OK) == 0 ? ": not a regular file" : "");
    return false;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    *err = "cannot read trace file '" + file + "'";
    return false;
  }
  if (st.st_size > kMaxTraceBytes) {
    *err = file + ": " + std::to_string((long long)st.st_size) + " bytes, larger than a trace can be (at most " +
           std::to_string(kMaxTraceBytes) + ")";
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  return read_trace_text(file, text.str(), r, err, origin, fingerprint);
}

bool read_trace_text(const std::string& file, const std::string& text, RunResult* r, std::string* err,
                     TraceOrigin* origin, std::string* fingerprint) {
  if (text.size() > (size_t)kMaxTraceBytes) {
    *err = file + ": larger than a trace can be (at most " + std::to_string(kMaxTraceBytes) + " bytes)";
    return false;
  }
  nlohmann::json v;
  try {
    v = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    *err = file + ": not JSON: byte " + std::to_string(e.byte) + ": " + library_message(e);
    return false;
  } catch (const nlohmann::json::exception& e) {  // e.g. a number out of range
    *err = file + ": not JSON: " + library_message(e);
    return false;
  }
  if (!v.is_object()) return not_a_trace(file, "not a JSON object", err);
  auto schema = v.find("schema");
  if (schema == v.end() || *schema != kTraceSchema)
    return not_a_trace(file, std::string("no \"schema\": \"") + kTraceSchema + "\"", err);
  TraceOrigin o;
  std::string recorded_fingerprint;
  std::string* fields[] = {&r->scenario, &r->mutant, &r->variant, &r->search, &r->state, &r->kind, &r->message,
                           &o.model_hash, &o.binary_hash, &recorded_fingerprint};
  const char* names[] = {"scenario", "mutant", "variant", "search", "state", "kind", "message",
                         "model_hash", "binary_hash", "fingerprint"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    auto f = v.find(names[i]);
    if (f == v.end() || !f->is_string()) return not_a_trace(file, std::string("no string field '") + names[i] + "'", err);
    *fields[i] = f->get<std::string>();
  }
  auto step = v.find("failing_step");
  if (step == v.end() || !step->is_number_integer() || *step < -1 || *step > INT_MAX)
    return not_a_trace(file, "no integer field 'failing_step' in [-1, INT_MAX]", err);
  r->failing_step = step->get<int>();
  if (origin) *origin = o;
  if (fingerprint) *fingerprint = recorded_fingerprint;
  return true;
}

std::string replay_difference(const RunResult& saved, const RunResult& r) {
  if (r.result != "counterexample") return "the run ended " + r.result + ", not in a counterexample";
  if (r.kind != saved.kind) return "it failed with " + r.kind + ", not " + saved.kind;
  if (r.failing_step != saved.failing_step)
    return "it failed at step " + std::to_string(r.failing_step) + ", not " + std::to_string(saved.failing_step);
  return "";
}

std::string trace_replay_problem(const std::string& file, const RunResult& saved, const std::string& fingerprint) {
  if (saved.mutant != "none" && !find_mutant(saved.mutant)) return file + ": unknown mutant " + shown(saved.mutant);
  SearchSpec search;
  std::string err;
  if (!SearchSpec::parse(saved.search, &search, &err))
    return file + ": search " + shown(saved.search) + " is not full, bound:N or random:N";
  if (saved.kind.empty() || saved.kind.size() > 100) return file + ": kind " + shown(saved.kind) + " is not a failure kind";
  // The state's shape is checked against the scenario's thread count in the driver, before
  // Relacy reads it; here, last: each field is valid on its own, but were they recorded together?
  if (saved.state.empty()) return file + ": state is empty: nothing to replay";
  if (fingerprint != trace_fingerprint(saved))
    return file + ": fields scenario, mutant, variant, search and state were not recorded together (fingerprint "
                  "mismatch): the trace was edited or retargeted to scenario " + shown(saved.scenario);
  return "";
}

bool read_trace_rows(const std::string& file, const std::string& text, RunResult* r, std::string* err) {
  nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
  auto bad = [&](const std::string& why) {
    *err = file + ": not a vmaverify trace (" + why + ")";
    return false;
  };
  if (!v.is_object() || !v.contains("events") || !v["events"].is_array()) return bad("no array field 'events'");
  const char* strings[] = {"function", "object", "operation", "value", "order", "source"};
  size_t i = 0;
  for (const nlohmann::json& e : v["events"]) {
    const std::string at = "event " + std::to_string(i++);
    if (!e.is_object()) return bad(at + " is not an object");
    TraceEvent t;
    std::string* fields[] = {&t.function, &t.object, &t.operation, &t.value, &t.order, &t.source};
    for (size_t k = 0; k < 6; k++) {
      if (!e.contains(strings[k]) || !e[strings[k]].is_string()) return bad(at + ": no string field '" + strings[k] + "'");
      *fields[k] = e[strings[k]].get<std::string>();
    }
    for (const char* k : {"step", "thread"})
      if (!e.contains(k) || !e[k].is_number_integer() || e[k] < -1 || e[k] > 1000000000)
        return bad(at + ": no integer field '" + k + "'");
    if (!e.contains("failing") || !e["failing"].is_boolean()) return bad(at + ": no boolean field 'failing'");
    t.step = e["step"].get<int>();
    t.thread = e["thread"].get<int>();
    t.failing = e["failing"].get<bool>();
    // Optional: traces record it since the call chains were added.
    if (e.contains("chain")) {
      if (!e["chain"].is_string()) return bad(at + ": field 'chain' is not a string");
      t.chain = e["chain"].get<std::string>();
    }
    r->events.push_back(t);
  }
  if (r->events.empty() || !r->events.back().failing) return bad("the last event is not the failing one");
  // Optional: a kernel trace's cited lines of the tree (file -> line -> text).
  if (v.contains("source_lines")) {
    const nlohmann::json& files = v["source_lines"];
    if (!files.is_object()) return bad("field 'source_lines' is not an object");
    for (const auto& f : files.items()) {
      if (!f.value().is_object()) return bad("source_lines of " + f.key() + " is not an object");
      for (const auto& l : f.value().items()) {
        char* end = nullptr;
        const long line = std::strtol(l.key().c_str(), &end, 10);
        if (l.key().empty() || *end || line < 1 || line > 10000000 || !l.value().is_string())
          return bad("source_lines of " + f.key() + ": line " + shown(l.key()) + " is not a line number with its text");
        r->source_lines[f.key()][(int)line] = l.value().get<std::string>();
      }
    }
  }
  // Traces written before the statistics were recorded have none: the report shows zeros.
  auto st = v.find("statistics");
  if (st != v.end() && st->is_object())
    for (auto it = st->begin(); it != st->end(); ++it) {
      if (!it->is_number()) continue;
      if (it.key() == "iterations" && it->is_number_unsigned()) r->iterations = it->get<uint64_t>();
      else if (it.key() == "seconds") r->seconds = it->get<double>();
      else if (it->is_number_integer()) r->stats[it.key()] = it->get<long>();
    }
  return true;
}
