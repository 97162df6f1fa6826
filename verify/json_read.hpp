// A small JSON reader: enough to read back traces and to check the tool's own output in tests.
#pragma once
#include <map>
#include <string>
#include <vector>

struct JsonValue {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  bool b = false;
  double n = 0;
  std::string s;
  std::vector<JsonValue> a;
  std::map<std::string, JsonValue> o;

  bool has(const std::string& k) const { return type == Object && o.count(k); }
  const JsonValue& operator[](const std::string& k) const { return o.at(k); }
};

// Parse one JSON value filling the whole text; false with *err (and the offset) otherwise.
bool json_parse(const std::string& text, JsonValue* out, std::string* err);
