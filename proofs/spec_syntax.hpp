// The SMT-LIB syntax of spec files, read without recursion and within fixed limits, so that
// no input can exhaust the stack or memory before Z3 sees it; and the one check that needs
// the parsed terms: a spec contains only the commands a spec may contain.
#pragma once
#include <string>
#include <vector>

// Limits on a spec file (README, "Limits"). The default specs are a few kilobytes, nest
// about 15 deep and unroll traces of 16.
constexpr size_t kMaxSpecBytes = 64 * 1024;
constexpr int kMaxSpecDepth = 256;
constexpr int kMaxTraceLength = 32;

// An s-expression: an atom (a symbol, keyword, numeral or string literal as written), or a list.
struct SpecTerm {
  std::string atom;
  bool is_list = false;
  std::vector<SpecTerm> list;
  int line = 0;                 // where it starts
  size_t begin = 0, end = 0;    // its extent in the text
};

// The top-level terms of text. False with *line and *error on unbalanced parentheses, an
// unterminated string or quoted symbol, a backslash in either (SMT-LIB 2.6 has no escapes
// there, Z3 has: refusing them keeps both readings the same), or nesting deeper than
// kMaxSpecDepth. Comments are skipped.
bool parse_spec_terms(const std::string& text, std::vector<SpecTerm>* out, int* line, std::string* error);

// "" when every term is (define-fun ...), (define-fun-rec ...) or (assert ...); else why not.
std::string disallowed_command(const SpecTerm& t);

// text with everything outside the given top-level terms (comments, blanks) turned into
// blanks, line breaks kept: what Z3 parses is then exactly what was checked.
std::string only_terms(const std::string& text, const std::vector<SpecTerm>& terms);

// The header comments: a line whose first non-blank is ';', then "KEY: VALUE" after the
// semicolons. False when the line is no such header.
bool header_comment(const std::string& line, std::string* key, std::string* value);
