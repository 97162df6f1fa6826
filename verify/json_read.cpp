#include "verify/json_read.hpp"

#include <cstdlib>

namespace {

struct Parser {
  const std::string& t;
  size_t i = 0;
  std::string err;

  void ws() {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t' || t[i] == '\r')) i++;
  }
  bool fail(const std::string& m) {
    if (err.empty()) err = m + " at offset " + std::to_string(i);
    return false;
  }
  bool lit(const char* w) {
    size_t n = std::string(w).size();
    if (t.compare(i, n, w) != 0) return fail("unexpected token");
    i += n;
    return true;
  }
  bool str(std::string* out) {
    if (t[i] != '"') return fail("expected a string");
    for (i++; i < t.size(); i++) {
      char c = t[i];
      if (c == '"') {
        i++;
        return true;
      }
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (++i >= t.size()) break;
      switch (t[i]) {
        case 'n': *out += '\n'; break;
        case 't': *out += '\t'; break;
        case 'r': *out += '\r'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'u': {
          if (i + 4 >= t.size()) return fail("bad \\u escape");
          unsigned cp = std::strtoul(t.substr(i + 1, 4).c_str(), nullptr, 16);
          i += 4;
          if (cp < 0x80) {
            *out += (char)cp;
          } else if (cp < 0x800) {
            *out += (char)(0xc0 | (cp >> 6));
            *out += (char)(0x80 | (cp & 0x3f));
          } else {
            *out += (char)(0xe0 | (cp >> 12));
            *out += (char)(0x80 | ((cp >> 6) & 0x3f));
            *out += (char)(0x80 | (cp & 0x3f));
          }
          break;
        }
        default: *out += t[i];
      }
    }
    return fail("unterminated string");
  }
  bool value(JsonValue* v, int depth) {
    if (depth > 64) return fail("nested too deep");
    ws();
    if (i >= t.size()) return fail("unexpected end");
    char c = t[i];
    if (c == '{') {
      v->type = JsonValue::Object;
      i++;
      ws();
      if (i < t.size() && t[i] == '}') return i++, true;
      for (;;) {
        ws();
        std::string k;
        if (i >= t.size() || !str(&k)) return fail("expected a key");
        ws();
        if (i >= t.size() || t[i] != ':') return fail("expected ':'");
        i++;
        if (!value(&v->o[k], depth + 1)) return false;
        ws();
        if (i < t.size() && t[i] == ',') { i++; continue; }
        if (i < t.size() && t[i] == '}') return i++, true;
        return fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v->type = JsonValue::Array;
      i++;
      ws();
      if (i < t.size() && t[i] == ']') return i++, true;
      for (;;) {
        v->a.emplace_back();
        if (!value(&v->a.back(), depth + 1)) return false;
        ws();
        if (i < t.size() && t[i] == ',') { i++; continue; }
        if (i < t.size() && t[i] == ']') return i++, true;
        return fail("expected ',' or ']'");
      }
    }
    if (c == '"') return v->type = JsonValue::String, str(&v->s);
    if (c == 't') return v->type = JsonValue::Bool, v->b = true, lit("true");
    if (c == 'f') return v->type = JsonValue::Bool, lit("false");
    if (c == 'n') return lit("null");
    const char* start = t.c_str() + i;
    char* end = nullptr;
    v->n = std::strtod(start, &end);
    if (end == start) return fail("unexpected character");
    v->type = JsonValue::Number;
    i += end - start;
    return true;
  }
};

}  // namespace

bool json_parse(const std::string& text, JsonValue* out, std::string* err) {
  Parser p{text};
  *out = JsonValue();
  if (p.value(out, 0)) {
    p.ws();
    if (p.i == text.size()) return true;
    p.fail("trailing characters");
  }
  *err = p.err;
  return false;
}
