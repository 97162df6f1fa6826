#include "proofs/spec_syntax.hpp"

#include <cctype>

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool ends_atom(char c) { return is_blank(c) || c == '(' || c == ')' || c == ';' || c == '"' || c == '|'; }

// Scans a "string" or |quoted symbol| starting at text[i]; false with *error if unterminated or escaped.
bool scan_delimited(const std::string& text, size_t* i, int* line, std::string* error) {
  const char close = text[*i];
  const char* what = close == '"' ? "string literal" : "quoted symbol";
  const int start_line = *line;
  for (size_t k = *i + 1; k < text.size(); k++) {
    if (text[k] == '\n') ++*line;
    if (text[k] == '\\') {
      *error = std::string("backslash in a ") + what;
      return false;
    }
    if (text[k] != close) continue;
    if (close == '"' && k + 1 < text.size() && text[k + 1] == '"') {  // "" is a quote inside a string
      k++;
      continue;
    }
    *i = k + 1;
    return true;
  }
  *line = start_line;
  *error = std::string("unterminated ") + what;
  return false;
}

}  // namespace

bool parse_spec_terms(const std::string& text, std::vector<SpecTerm>* out, int* line, std::string* error) {
  out->clear();
  std::vector<SpecTerm*> open;  // the lists being read, innermost last
  std::vector<SpecTerm> top;
  int ln = 1;
  auto place = [&]() -> SpecTerm& {
    std::vector<SpecTerm>& into = open.empty() ? top : open.back()->list;
    into.emplace_back();
    into.back().line = ln;
    return into.back();
  };
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ln++;
      i++;
    } else if (is_blank(c)) {
      i++;
    } else if (c == ';') {
      while (i < text.size() && text[i] != '\n') i++;
    } else if (c == '(') {
      if ((int)open.size() >= kMaxSpecDepth) {
        *line = ln;
        *error = "nesting deeper than " + std::to_string(kMaxSpecDepth) + " levels (the limit for a spec)";
        return false;
      }
      SpecTerm& t = place();
      t.is_list = true;
      t.begin = i++;
      open.push_back(&t);  // stable: nothing is added to the enclosing list until this one closes
    } else if (c == ')') {
      if (open.empty()) {
        *line = ln;
        *error = "unbalanced ')'";
        return false;
      }
      open.back()->end = ++i;
      open.pop_back();
    } else {
      SpecTerm& t = place();
      t.begin = i;
      if (c == '"' || c == '|') {
        if (!scan_delimited(text, &i, &ln, error)) {
          *line = t.line;
          return false;
        }
      } else {
        while (i < text.size() && !ends_atom(text[i])) i++;
      }
      t.end = i;
      t.atom = text.substr(t.begin, t.end - t.begin);
    }
  }
  if (!open.empty()) {
    *line = open.back()->line;
    *error = "'(' never closed";
    return false;
  }
  *out = std::move(top);
  return true;
}

std::string disallowed_command(const SpecTerm& t) {
  if (!t.is_list) return "'" + t.atom.substr(0, 40) + "' outside a command";
  if (t.list.empty() || t.list[0].is_list) return "a list that is not a command";
  const std::string& head = t.list[0].atom;
  if (head == "define-fun" || head == "define-fun-rec" || head == "assert") return "";
  if (head.compare(0, 8, "declare-") == 0) return "specs may not declare symbols; use define-fun or a quantifier";
  return "command '" + head.substr(0, 40) + "' is not allowed in a spec (only define-fun, define-fun-rec and assert)";
}

std::string only_terms(const std::string& text, const std::vector<SpecTerm>& terms) {
  std::string out(text.size(), ' ');
  for (size_t i = 0; i < text.size(); i++)
    if (text[i] == '\n') out[i] = '\n';
  for (const SpecTerm& t : terms) out.replace(t.begin, t.end - t.begin, text, t.begin, t.end - t.begin);
  return out;
}

bool header_comment(const std::string& line, std::string* key, std::string* value) {
  size_t i = 0;
  auto skip_blanks = [&]() {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) i++;
  };
  skip_blanks();
  if (i == line.size() || line[i] != ';') return false;
  while (i < line.size() && line[i] == ';') i++;
  skip_blanks();
  size_t k = i;
  while (i < line.size() && std::isalpha((unsigned char)line[i])) i++;
  *key = line.substr(k, i - k);
  skip_blanks();
  if (key->empty() || i == line.size() || line[i] != ':') return false;
  i++;
  skip_blanks();
  size_t e = line.size();
  while (e > i && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r')) e--;
  *value = line.substr(i, e - i);
  return true;
}
