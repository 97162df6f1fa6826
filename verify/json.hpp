// A minimal JSON object writer for the command line's --json output.
#pragma once
#include <cstdio>
#include <string>

inline std::string json_quote(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += (char)c;
        }
    }
  }
  return o + "\"";
}

class JsonObject {
 public:
  JsonObject& str(const std::string& k, const std::string& v) { return raw(k, json_quote(v)); }
  JsonObject& num(const std::string& k, double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", v);
    return raw(k, b);
  }
  JsonObject& num(const std::string& k, long long v) { return raw(k, std::to_string(v)); }
  JsonObject& boolean(const std::string& k, bool v) { return raw(k, v ? "true" : "false"); }
  JsonObject& raw(const std::string& k, const std::string& json) {
    body_ += (body_.empty() ? "" : ", ") + json_quote(k) + ": " + json;
    return *this;
  }
  std::string done() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};
