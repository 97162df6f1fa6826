#include "proofs/spec_file.hpp"

#include <sys/stat.h>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include "proofs/spec_syntax.hpp"

static std::string base_name(const std::string& path) {
  std::string n = path.substr(path.find_last_of('/') + 1);
  const std::string ext = ".smt2";
  if (n.size() > ext.size() && n.compare(n.size() - ext.size(), ext.size(), ext) == 0) n.resize(n.size() - ext.size());
  return n;
}

static std::string located(const Spec& s, int line, const std::string& msg) {
  return s.path + ":" + std::to_string(line) + ": " + msg;
}

namespace {
struct FrozenSpec {
  bool ok;
  Spec spec;
  std::string error;
};
std::map<std::string, FrozenSpec>* g_frozen = nullptr;
}  // namespace

void freeze_spec_files(const std::vector<std::string>& paths) {
  auto* frozen = new std::map<std::string, FrozenSpec>;
  for (const std::string& p : paths) {
    FrozenSpec f;
    f.ok = load_spec(p, &f.spec, &f.error);
    (*frozen)[p] = f;
  }
  g_frozen = frozen;
}
bool spec_files_frozen() { return g_frozen != nullptr; }

bool load_spec(const std::string& path, Spec* out, std::string* error) {
  if (g_frozen) {
    const auto it = g_frozen->find(path);
    if (it == g_frozen->end()) {
      *error = path + ": cannot read spec file";
      return false;
    }
    if (!it->second.ok) *error = it->second.error;
    else *out = it->second.spec;
    return it->second.ok;
  }
  Spec s;
  s.path = path;
  s.name = base_name(path);
  // stat before opening: opening a FIFO would wait for a writer.
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *error = path + ": is a directory, not a spec file";
    return false;
  }
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    *error = path + ": cannot read spec file: not a regular file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot read spec file";
    return false;
  }
  // Read at most one byte past the limit: a larger file is refused without being held.
  s.text.resize(kMaxSpecBytes + 1);
  in.read(&s.text[0], (std::streamsize)s.text.size());
  s.text.resize((size_t)in.gcount());
  if (in.bad()) {
    *error = path + ": cannot read spec file";
    return false;
  }
  return spec_from_text(path, s.text, out, error);
}

bool spec_from_text(const std::string& path, const std::string& text, Spec* out, std::string* error) {
  Spec s;
  s.path = path;
  s.name = base_name(path);
  s.text = text;
  if (s.text.size() > kMaxSpecBytes) {
    *error = path + ": larger than " + std::to_string(kMaxSpecBytes) + " bytes (the limit for a spec)";
    return false;
  }
  std::istringstream lines(s.text);
  std::string line, key, value;
  for (int no = 1; std::getline(lines, line); no++) {
    if (!header_comment(line, &key, &value) || (key != "assumes" && key != "mode")) continue;
    if (key == "assumes") {
      std::istringstream names(value);
      for (std::string n; names >> n;) s.assumes.push_back(n);
      s.assumes_line = no;
      continue;
    }
    const std::string digits = value.compare(0, 5, "trace") == 0 ? value.substr(5) : "";
    const size_t first = digits.find_first_not_of(" \t");
    const std::string n = first == std::string::npos ? "" : digits.substr(first);
    if (value == "induction") {
      s.trace_length = 0;
    } else if (first > 0 && first != std::string::npos && n.size() <= 3 &&
               n.find_first_not_of("0123456789") == std::string::npos && std::stoi(n) > 0) {
      if (std::stoi(n) > kMaxTraceLength) {
        *error = located(s, no, "trace length " + n + " is above the limit of " + std::to_string(kMaxTraceLength));
        return false;
      }
      s.trace_length = std::stoi(n);
    } else {
      *error = located(s, no, "unknown mode " + value.substr(0, 40) + (value.size() > 40 ? "..." : "") +
                                  " (expected 'induction' or 'trace N')");
      return false;
    }
  }
  *out = s;
  return true;
}

Vocabulary::Vocabulary(z3::context& c, bool trace)
    : state(fresh_state(c, "")),
      n(c.int_const("n")),
      seq(c.constant("seq", c.array_sort(c.int_sort(), c.int_sort()))),
      decls(c),
      consts(c) {
  for (const StateField& f : state_fields()) consts.push_back(state.*f.member);
  if (trace) {
    consts.push_back(n);
    consts.push_back(seq);
  }
  for (unsigned i = 0; i < consts.size(); i++) decls.push_back(consts[i].decl());
}

z3::expr_vector state_terms(z3::context& c, const BatchState& s) {
  z3::expr_vector v(c);
  for (const StateField& f : state_fields()) v.push_back(s.*f.member);
  return v;
}

z3::expr spec_at(const z3::expr& spec, const Vocabulary& v, const BatchState& s) {
  z3::context& c = spec.ctx();
  z3::expr_vector from(c);
  for (const StateField& f : state_fields()) from.push_back(v.state.*f.member);
  z3::expr e = spec;
  return e.substitute(from, state_terms(c, s));
}

static void atoms_of(const SpecTerm& e, std::set<std::string>* out) {
  if (!e.is_list) out->insert(e.atom);
  for (const SpecTerm& x : e.list) atoms_of(x, out);  // depth at most kMaxSpecDepth
}

// Z3 4.8 never finishes unfolding a recursive function whose body reads a free constant
// (it ran out of memory on one), so such a helper is an error naming what to pass instead.
static std::string rec_reading_state(const SpecTerm& def, const z3::func_decl_vector& vocabulary) {
  if (def.list.size() != 5 || def.list[0].atom != "define-fun-rec") return "";
  std::set<std::string> body, params;
  atoms_of(def.list[4], &body);
  for (const SpecTerm& p : def.list[2].list)
    if (!p.list.empty()) params.insert(p.list[0].atom);
  for (unsigned k = 0; k < vocabulary.size(); k++) {
    std::string name = vocabulary[k].name().str();
    if (body.count(name) && !params.count(name))
      return "recursive helper " + def.list[1].atom.substr(0, 80) + " reads " + name +
             " directly: pass it as an argument (Z3 4.8 cannot unfold recursive functions over free constants)";
  }
  return "";
}

// Z3 says "(error \"line L column C: message\")": keep the inner text, on one line, shortened
// (it may quote a name as long as the file).
static std::string z3_message(const std::string& raw) {
  std::string msg = raw;
  const std::string open = "(error \"";
  size_t at = msg.find(open), close = msg.rfind("\")");
  if (at != std::string::npos && close != std::string::npos && close > at) msg = msg.substr(at + open.size(), close - at - open.size());
  for (char& ch : msg)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!msg.empty() && msg.back() == ' ') msg.pop_back();
  const size_t most = 300;
  return msg.size() > most ? msg.substr(0, most) + "..." : msg;
}

// The number after "line " in Z3's message, or 0.
static int line_in(const std::string& msg) {
  size_t at = msg.find("line ");
  if (at == std::string::npos) return 0;
  long n = 0;
  for (size_t i = at + 5; i < msg.size() && std::isdigit((unsigned char)msg[i]) && n < 1000000000; i++)
    n = n * 10 + (msg[i] - '0');
  return (int)n;
}

// The line an error is on: Z3's own when it gives one, else the first command whose
// prefix of the file no longer parses.
static int error_line(z3::context& c, const std::string& msg, const std::string& text,
                      const std::vector<SpecTerm>& terms, const z3::func_decl_vector& decls) {
  if (int at = line_in(msg)) return at;
  z3::sort_vector no_sorts(c);
  std::vector<SpecTerm> prefix;
  for (const SpecTerm& t : terms) {
    prefix.push_back(t);
    try {
      c.parse_string(only_terms(text, prefix).c_str(), no_sorts, decls);
    } catch (const z3::exception&) {
      return t.line;
    }
  }
  return 1;
}

// The spec's top-level terms, checked: only define-fun, define-fun-rec and assert, no
// recursive helper reading the state.
static bool checked_terms(const Spec& spec, const Vocabulary& v, std::vector<SpecTerm>* terms, std::string* error) {
  int line = 1;
  std::string why;
  if (!parse_spec_terms(spec.text, terms, &line, &why)) {
    *error = located(spec, line, why);
    return false;
  }
  for (const SpecTerm& t : *terms) {
    why = disallowed_command(t);
    if (why.empty()) why = rec_reading_state(t, v.decls);
    if (!why.empty()) {
      *error = located(spec, t.line, why);
      return false;
    }
  }
  return true;
}

static bool parse_assertions(z3::context& c, const Spec& spec, const Vocabulary& v, z3::expr_vector* asserted,
                             std::string* error) {
  // A declared symbol would be a free variable whose meaning differs between the base case
  // and the step; any other command (reset, push, pop, exit, ...) could undo an assertion.
  std::vector<SpecTerm> terms;
  if (!checked_terms(spec, v, &terms, error)) return false;
  const std::string text = only_terms(spec.text, terms);
  z3::sort_vector no_sorts(c);
  try {
    *asserted = c.parse_string(text.c_str(), no_sorts, v.decls);
  } catch (const z3::exception& e) {
    std::string msg = z3_message(e.msg());
    *error = located(spec, error_line(c, msg, spec.text, terms, v.decls), msg);
    return false;
  }
  if (asserted->empty()) {
    *error = located(spec, terms.empty() ? 1 : terms.back().line, "no (assert ...) in spec");
    return false;
  }
  return true;
}

bool parse_spec(z3::context& c, const Spec& spec, const Vocabulary& v, z3::expr* out, std::string* error) {
  z3::expr_vector asserted(c);
  if (!parse_assertions(c, spec, v, &asserted, error)) return false;
  *out = asserted.size() == 1 ? asserted[0] : z3::mk_and(asserted);
  return true;
}

bool parse_defined_bool(z3::context& c, const Spec& spec, const Vocabulary& v, const std::string& name, z3::expr* out,
                        std::string* error) {
  error->clear();
  std::vector<SpecTerm> terms;
  if (!checked_terms(spec, v, &terms, error)) return false;
  bool defined = false;
  for (const SpecTerm& t : terms)
    defined |= t.list.size() > 1 && t.list[0].atom == "define-fun" && t.list[1].atom == name;
  if (!defined) return false;
  Spec probe = spec;
  probe.text += "\n(assert " + name + ")\n";
  z3::expr_vector asserted(c);
  if (!parse_assertions(c, probe, v, &asserted, error)) return false;
  *out = asserted[asserted.size() - 1];
  return true;
}
