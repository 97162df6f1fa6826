#include "verify/report/trace_state.hpp"

#include <cstring>
#include <regex>
#include "verify/report/trace.hpp"

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// What a row wrote to its object (decoded, as its value column shows it), or "" if it wrote
// nothing (row_writes): a compare-exchange's "...; new NEW", an exchange's or read-modify-write's
// "OLD -> NEW", a store's value.
std::string written(const TraceEvent& e) {
  if (!row_writes(e)) return "";
  if (e.operation.find("store") != std::string::npos) return e.value;
  const char* mark = starts_with(e.operation, "compare-exchange") ? "; new " : " -> ";
  const size_t at = e.value.find(mark);
  return at == std::string::npos ? "" : e.value.substr(at + std::strlen(mark));
}

}  // namespace

std::string TraceState::holders(const std::string& lock) const {
  std::string s;
  auto w = writer_.find(lock);
  // Exclusive and shared: a write and a read hold of an rw_semaphore, or a spinlock's hold.
  if (w != writer_.end()) s = "held exclusively by T" + std::to_string(w->second);
  auto r = readers_.find(lock);
  if (r != readers_.end() && !r->second.empty()) {
    s += s.empty() ? "held shared by" : "; shared by";
    for (int t : std::set<int>(r->second.begin(), r->second.end())) s += " T" + std::to_string(t);
  }
  return s.empty() ? "free" : s;
}

// Relacy's reader/writer mutex events: the abstract rw_semaphore, the wait_lock, page-table locks.
std::string TraceState::lock_change(const TraceEvent& e) {
  const std::string& op = e.operation;
  const std::string& lock = e.object;
  if (op == "mutex: exclusive lock" || op == "mutex: recursive exclusive lock") writer_[lock] = e.thread;
  else if (op == "mutex: exclusive unlock") writer_.erase(lock);
  else if (op == "mutex: shared lock" || op == "mutex: recursive shared lock") readers_[lock].insert(e.thread);
  else if (op == "mutex: shared unlock") {
    auto r = readers_.find(lock);
    if (r != readers_.end() && r->second.count(e.thread)) r->second.erase(r->second.find(e.thread));
  } else {
    return "";  // blocking, a failed try: no owner changes
  }
  const std::string now = holders(lock);
  if (now == "free") parts_[Kind::lock].erase(lock);
  else parts_[Kind::lock][lock] = now;
  return lock + ": " + now;
}

// The kernel code's wait lists (model/kshim/rwsem.h names their words): after a write to a link
// or to a waiter's handoff_set, each list is followed from its head, "sem->wait_list: [T1 writer
// (handoff_set)]". A waiter is a reader or a writer by the slowpath its task was in.
std::vector<std::string> TraceState::kernel_wait_lists(const TraceEvent& e) {
  static const std::regex head(R"(^(.+)->wait_list\.(next|prev)$)");
  static const std::regex word(R"(^waiter\.(list\.next|list\.prev|handoff_set) of task \d{1,6}$)");
  if (e.function == "rwsem_down_write_slowpath") slowpath_[e.thread] = "writer";
  if (e.function == "rwsem_down_read_slowpath") slowpath_[e.thread] = "reader";
  std::vector<std::string> changes;
  const std::string now = written(e);
  std::smatch m;
  const bool is_head = std::regex_match(e.object, m, head);
  if (now.empty() || (!is_head && !std::regex_match(e.object, word))) return changes;
  // Bounded, whatever a trace file holds: a run has a few semaphores and a few tasks.
  if (links_.size() >= kMaxLinks && !links_.count(e.object)) return changes;
  links_[e.object] = now;
  if (is_head && m[2] == "next" && heads_.size() < kMaxHeads) heads_.insert(m[1]);
  for (const std::string& sem : heads_) {
    const std::string list = sem + "->wait_list";
    auto first = links_.find(list + ".next");
    if (first == links_.end()) continue;
    std::string text = "[", at = first->second;
    for (int n = 0; at != list && n < 8; n++) {
      static const std::regex node(R"(^waiter\.list of task (\d{1,6})$)");
      std::smatch w;
      if (!std::regex_match(at, w, node)) {
        text += std::string(n ? ", " : "") + "? (" + at + ")";  // a link the trace does not explain
        break;
      }
      const std::string task = w[1];
      auto kind = slowpath_.find(std::stoi(task));
      auto handoff = links_.find("waiter.handoff_set of task " + task);
      text += std::string(n ? ", " : "") + "T" + task + (kind == slowpath_.end() ? "" : " " + kind->second) +
              (handoff != links_.end() && handoff->second == "1" ? " (handoff_set)" : "");
      auto next = links_.find("waiter.list.next of task " + task);
      at = next == links_.end() ? list : next->second;
    }
    text += "]";
    std::string& part = parts_[Kind::wait_list][list];
    if (part != text) changes.push_back(list + ": " + text);
    part = text;
  }
  return changes;
}

std::vector<std::string> TraceState::apply(const TraceEvent& e) {
  std::vector<std::string> changes;
  // Object names are short (model/trace_names.hpp keeps 128 bytes); a longer one comes from an
  // edited trace file, and std::regex recurses per character: it is left out.
  if (e.object.size() > kMaxObjectName) return changes;
  auto change = [&](Kind k, const std::string& what, const std::string& now) {
    std::string& part = parts_[k][what];
    if (part == now) return;
    part = now;
    changes.push_back(what + ": " + now);
  };
  if (e.object == "the batch") change(Kind::batch, "batch", e.value);
  if (starts_with(e.object, "count of ")) {
    const std::string now = written(e);
    if (!now.empty()) change(Kind::count, e.object, now);
  }
  if (starts_with(e.operation, "mutex: ")) {
    const std::string c = lock_change(e);
    if (!c.empty()) changes.push_back(c);
  }
  // The hand model's queue: its own row after each change (model/rwsem_count.hpp).
  if (starts_with(e.operation, "wait_list of ") && e.operation.find(": ") != std::string::npos) {
    const size_t at = e.operation.find(": ");
    change(Kind::wait_list, e.operation.substr(0, at), e.operation.substr(at + 2));
  }
  for (const std::string& c : kernel_wait_lists(e)) changes.push_back(c);
  // A page-table entry (model/page_tables.cpp names them): the state of the table it points to.
  // %#lx prints the table at address 0 as "0".
  static const std::regex entry(R"(^(?:pgd|pud|pmd) entry -> (\w+ table (?:0x[0-9a-f]+|0))(?: \(in [^)]*\))? of (.+)$)");
  std::smatch m;
  if (std::regex_match(e.object, m, entry)) {
    const std::string now = written(e);
    if (!now.empty()) change(Kind::table, m[1].str() + " of " + m[2].str(), now);
  }
  return changes;
}

std::string TraceState::summary() const {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : "; ") + part; };
  for (int k = 0; k < Kind::table; k++)
    for (const auto& p : parts_[k])
      if (p.second != "[]") add(p.first + ": " + p.second);  // an empty wait list says nothing
  // Tables by the process they belong to, top level first: "tables of P: PUD table 0x... FREED, ...".
  std::map<std::string, std::map<std::pair<int, std::string>, std::string>> by_owner;
  for (const auto& p : parts_[Kind::table]) {
    const size_t of = p.first.find(" of ");
    const std::string table = p.first.substr(0, of);
    int level = 0;
    for (const char* name : {"P4D", "PUD", "PMD", "PTE"})
      if (level++, starts_with(table, name)) break;
    by_owner[p.first.substr(of + 4)][{level, table}] = p.second;
  }
  for (const auto& o : by_owner) {
    std::string tables;
    for (const auto& t : o.second) tables += (tables.empty() ? "" : ", ") + t.first.second + " " + t.second;
    add("tables of " + o.first + ": " + tables);
  }
  return s;
}
