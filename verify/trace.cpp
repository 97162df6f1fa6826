#include "verify/trace.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include "model/trace_names.hpp"
#include "verify/json_out.hpp"

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

std::string field(const std::string& text, const std::string& key) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex(key + "=([^,]*)"))) return m[1];
  return "";
}

// A raw value in the terms of the object it was read from or written to.
std::string decode_value(const std::string& object, const std::string& raw) {
  if (raw.empty()) return raw;
  unsigned long long v = std::strtoull(raw.c_str(), nullptr, 0);
  // model/page_tables.hpp's table_state.
  if (object.find(" table 0x") != std::string::npos)
    return v == 1 ? "present" : v == 2 ? "FREED" : v == 3 ? "RETRACTED" : raw;
  if (object.rfind("i_mmap of", 0) == 0) {
    std::string set;
    for (int i = 0; i < 32; i++)
      if (v >> i & 1) set += (set.empty() ? "vma " : ", vma ") + std::to_string(i);
    return "{" + set + "}";
  }
  if (object.rfind("count of", 0) == 0) {
    long long c = (long long)v;
    std::string d = "readers=" + std::to_string(c >> 8);
    if (c & 1) d += "|WRITER_LOCKED";
    if (c & 2) d += "|WAITERS";
    if (c & 4) d += "|HANDOFF";
    return d;
  }
  if (object.rfind("waiter.task", 0) == 0) {
    const char* name = trace_name_of(reinterpret_cast<const void*>(v));
    return v == 0 ? "NULL (granted)" : name ? name : raw;
  }
  return raw;
}

std::string decode_pair(const std::string& object, const std::string& raw) {
  size_t arrow = raw.find(" -> ");
  if (arrow == std::string::npos) return decode_value(object, raw);
  return decode_value(object, raw.substr(0, arrow)) + " -> " + decode_value(object, raw.substr(arrow + 4));
}

}  // namespace

std::vector<TraceEvent> parse_relacy_history(const std::string& output) {
  std::vector<TraceEvent> events;
  std::istringstream in(output);
  std::string line;
  bool in_history = false, set_up = false;
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
    size_t comma = text.find(", ");
    e.operation = text.substr(0, comma);
    std::string rest = comma == std::string::npos ? "" : text.substr(comma + 2);
    e.order = field(rest, "order");
    if (!field(rest, "new").empty())
      e.value = field(rest, "prev") + " -> " + field(rest, "new");
    else if (!field(rest, "xchg").empty())
      e.value = "expected " + field(rest, "cmp") + ", was " + field(rest, "orig") + ", new " + field(rest, "xchg");
    else
      e.value = field(rest, "value");
    e.value = decode_pair(e.object, e.value);
    if (rest.find("[NOT CURRENT]") != std::string::npos) e.value += " (stale: not the latest store)";
    events.push_back(e);
  }
  if (!events.empty()) events.back().failing = true;
  return events;
}

std::string trace_text(const RunResult& r) {
  std::string t = "counterexample: " + r.kind + ": " + r.message + "\n";
  t += "scenario " + r.scenario + ", mutant " + r.mutant + ", " + r.variant + ", search " + r.search + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "   %5s %-3s %-30s %-30s %-22s %-22s %-8s %s\n", "step", "thr", "function", "object",
                "operation", "value", "order", "source");
  t += line;
  for (const TraceEvent& e : r.events) {
    std::snprintf(line, sizeof line, "%s %5d T%-2d %-30s %-30s %-22s %-22s %-8s %s\n", e.failing ? ">> " : "   ",
                  e.step, e.thread, e.function.c_str(), e.object.c_str(), e.operation.c_str(), e.value.c_str(),
                  e.order.c_str(), e.source.c_str());
    t += line;
  }
  return t;
}

std::string trace_json(const RunResult& r) {
  Json events = Json::array();
  for (const TraceEvent& e : r.events)
    events.push_back({{"step", e.step},         {"thread", e.thread}, {"function", e.function},
                      {"object", e.object},     {"operation", e.operation}, {"value", e.value},
                      {"order", e.order},       {"source", e.source}, {"failing", e.failing}});
  Json j = {{"schema", kTraceSchema}, {"scenario", r.scenario}, {"mutant", r.mutant}, {"variant", r.variant},
            {"search", r.search},     {"state", r.state},       {"result", r.result}, {"kind", r.kind},
            {"message", r.message},   {"failing_step", r.failing_step}, {"events", events}};
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

bool write_trace(const std::string& file, const RunResult& r, std::string* err) {
  const std::string text_file = file + ".txt";
  if (!may_replace(file, err) || !may_replace(text_file, err)) return false;
  // Both written in full to temporary files first, then renamed: no empty or partial trace.
  std::string json_tmp, text_tmp;
  if (!write_temporary(file, trace_json(r), &json_tmp, err)) return false;
  if (!write_temporary(file, trace_text(r), &text_tmp, err)) {
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

bool read_trace(const std::string& file, RunResult* r, std::string* err) {
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
  return read_trace_text(file, text.str(), r, err);
}

bool read_trace_text(const std::string& file, const std::string& text, RunResult* r, std::string* err) {
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
  std::string* fields[] = {&r->scenario, &r->mutant, &r->variant, &r->search, &r->state, &r->kind, &r->message};
  const char* names[] = {"scenario", "mutant", "variant", "search", "state", "kind", "message"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    auto f = v.find(names[i]);
    if (f == v.end() || !f->is_string()) return not_a_trace(file, std::string("no string field '") + names[i] + "'", err);
    *fields[i] = f->get<std::string>();
  }
  auto step = v.find("failing_step");
  if (step == v.end() || !step->is_number_integer() || *step < -1 || *step > INT_MAX)
    return not_a_trace(file, "no integer field 'failing_step' in [-1, INT_MAX]", err);
  r->failing_step = step->get<int>();
  return true;
}
