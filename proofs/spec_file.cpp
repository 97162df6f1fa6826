#include "proofs/spec_file.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

static std::string base_name(const std::string& path) {
  std::string n = path.substr(path.find_last_of('/') + 1);
  const std::string ext = ".smt2";
  if (n.size() > ext.size() && n.compare(n.size() - ext.size(), ext.size(), ext) == 0) n.resize(n.size() - ext.size());
  return n;
}

static std::string located(const Spec& s, int line, const std::string& msg) {
  return s.path + ":" + std::to_string(line) + ": " + msg;
}

bool load_spec(const std::string& path, Spec* out, std::string* error) {
  Spec s;
  s.path = path;
  s.name = base_name(path);
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *error = path + ": is a directory, not a spec file";
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot read spec file";
    return false;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  s.text = buf.str();

  static const std::regex header(R"(^\s*;+\s*(assumes|mode)\s*:\s*(.*?)\s*$)");
  static const std::regex trace_mode(R"(trace\s+([0-9]{1,3}))");
  std::istringstream lines(s.text);
  std::string line;
  for (int no = 1; std::getline(lines, line); no++) {
    std::smatch m;
    if (!std::regex_match(line, m, header)) continue;
    if (m[1] == "assumes") {
      std::istringstream names(m[2].str());
      for (std::string n; names >> n;) s.assumes.push_back(n);
      s.assumes_line = no;
      continue;
    }
    std::smatch t;
    std::string mode = m[2].str();
    if (mode == "induction") {
      s.trace_length = 0;
    } else if (std::regex_match(mode, t, trace_mode) && std::stoi(t[1].str()) > 0) {
      s.trace_length = std::stoi(t[1].str());
    } else {
      *error = located(s, no, "unknown mode '" + mode + "' (expected 'induction' or 'trace N')");
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

// Top-level s-expressions of an SMT-LIB text with the line each starts on, skipping
// comments and string literals.
static std::vector<std::pair<int, std::string>> commands(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  int depth = 0, line = 1, start_line = 1;
  size_t start = 0;
  bool in_string = false, in_comment = false;
  for (size_t i = 0; i < text.size(); i++) {
    char ch = text[i];
    if (ch == '\n') {
      line++;
      in_comment = false;
      continue;
    }
    if (in_comment) continue;
    if (in_string) {
      if (ch == '"') in_string = false;
      continue;
    }
    if (ch == ';') {
      in_comment = true;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '(') {
      if (depth++ == 0) start = i, start_line = line;
    } else if (ch == ')' && depth > 0 && --depth == 0) {
      out.push_back({start_line, text.substr(start, i + 1 - start)});
    }
  }
  if (depth > 0) out.push_back({start_line, text.substr(start)});
  return out;
}

// An s-expression: an atom, or a list.
struct Sexpr {
  std::string atom;
  std::vector<Sexpr> list;
};

// Parses the s-expression at text[*i], skipping comments and whitespace before its parts.
static Sexpr parse_sexpr(const std::string& text, size_t* i) {
  auto skip = [&]() {
    while (*i < text.size() && (isspace((unsigned char)text[*i]) || text[*i] == ';'))
      if (text[*i] == ';')
        while (*i < text.size() && text[*i] != '\n') ++*i;
      else
        ++*i;
  };
  Sexpr e;
  skip();
  if (*i < text.size() && text[*i] == '(') {
    ++*i;
    for (skip(); *i < text.size() && text[*i] != ')'; skip()) e.list.push_back(parse_sexpr(text, i));
    ++*i;
    return e;
  }
  while (*i < text.size() && !isspace((unsigned char)text[*i]) && text[*i] != '(' && text[*i] != ')' && text[*i] != ';')
    e.atom += text[(*i)++];
  return e;
}

static void atoms_of(const Sexpr& e, std::set<std::string>* out) {
  if (!e.atom.empty()) out->insert(e.atom);
  for (const Sexpr& x : e.list) atoms_of(x, out);
}

// Z3 4.8 never finishes unfolding a recursive function whose body reads a free constant
// (it ran out of memory on one), so such a helper is an error naming what to pass instead.
static std::string rec_reading_state(const std::string& command, const z3::func_decl_vector& vocabulary) {
  size_t at = 0;
  Sexpr def = parse_sexpr(command, &at);
  if (def.list.size() != 5 || def.list[0].atom != "define-fun-rec") return "";
  std::set<std::string> body, params;
  atoms_of(def.list[4], &body);
  for (const Sexpr& p : def.list[2].list)
    if (!p.list.empty()) params.insert(p.list[0].atom);
  for (unsigned k = 0; k < vocabulary.size(); k++) {
    std::string name = vocabulary[k].name().str();
    if (body.count(name) && !params.count(name))
      return "recursive helper " + def.list[1].atom + " reads " + name +
             " directly: pass it as an argument (Z3 4.8 cannot unfold recursive functions over free constants)";
  }
  return "";
}

// Z3 says "(error \"line L column C: message\")": keep the inner text.
static std::string z3_message(const std::string& raw) {
  static const std::regex wrapped(R"(^\s*\(error\s+\"([\s\S]*)\"\)\s*$)");
  std::smatch m;
  std::string msg = std::regex_match(raw, m, wrapped) ? m[1].str() : raw;
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return msg;
}

// The line an error is on: Z3's own when it gives one, else the first command whose
// prefix of the file no longer parses.
static int error_line(z3::context& c, const std::string& msg, const std::string& text,
                      const z3::func_decl_vector& decls) {
  static const std::regex at_line(R"(line\s+([0-9]+))");
  std::smatch m;
  if (std::regex_search(msg, m, at_line)) return std::stoi(m[1].str());
  z3::sort_vector no_sorts(c);
  std::string prefix;
  for (const auto& cmd : commands(text)) {
    prefix += cmd.second + "\n";
    try {
      c.parse_string(prefix.c_str(), no_sorts, decls);
    } catch (const z3::exception&) {
      return cmd.first;
    }
  }
  return 1;
}

// Z3 places an error found at the end of the input on the line after the last: point at the
// command that was still open instead, in the user's file.
static void relocate_end_of_file(const Spec& spec, const std::string& msg, std::string* error) {
  static const std::regex at_line(R"(^line\s+([0-9]+)\s+column\s+[0-9]+:\s*)");
  std::smatch m;
  if (!std::regex_search(msg, m, at_line)) return;
  const int lines = (int)std::count(spec.text.begin(), spec.text.end(), '\n') +
                    (!spec.text.empty() && spec.text.back() != '\n');
  if (std::stoi(m[1].str()) <= lines) return;
  const auto cmds = commands(spec.text);
  const int open_line = cmds.empty() ? std::max(lines, 1) : cmds.back().first;
  *error = located(spec, open_line, "the file ends inside this command (a ')' missing?): " + m.suffix().str());
}

static bool parse_assertions(z3::context& c, const Spec& spec, const Vocabulary& v, z3::expr_vector* asserted,
                             std::string* error) {
  // A declared symbol would be a free variable whose meaning differs between the base case
  // and the step: reject it and ask for a quantifier or a definition instead.
  for (const auto& cmd : commands(spec.text)) {
    if (cmd.second.compare(0, 9, "(declare-") == 0) {
      *error = located(spec, cmd.first, "specs may not declare symbols; use define-fun or a quantifier");
      return false;
    }
    std::string rec = rec_reading_state(cmd.second, v.decls);
    if (!rec.empty()) {
      *error = located(spec, cmd.first, rec);
      return false;
    }
  }
  z3::sort_vector no_sorts(c);
  try {
    *asserted = c.parse_string(spec.text.c_str(), no_sorts, v.decls);
  } catch (const z3::exception& e) {
    std::string msg = z3_message(e.msg());
    *error = located(spec, error_line(c, msg, spec.text, v.decls), msg);
    relocate_end_of_file(spec, msg, error);
    return false;
  }
  if (asserted->empty()) {
    auto cmds = commands(spec.text);
    *error = located(spec, cmds.empty() ? 1 : cmds.back().first, "no (assert ...) in spec");
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
  const std::string head = "(define-fun " + name;
  bool defined = false;
  for (const auto& cmd : commands(spec.text))
    defined |= cmd.second.compare(0, head.size(), head) == 0 && cmd.second.size() > head.size() &&
               isspace((unsigned char)cmd.second[head.size()]);
  if (!defined) return false;
  Spec probe = spec;
  probe.text += "\n(assert " + name + ")\n";
  z3::expr_vector asserted(c);
  if (!parse_assertions(c, probe, v, &asserted, error)) return false;
  *out = asserted[asserted.size() - 1];
  return true;
}
