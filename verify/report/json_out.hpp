// JSON as vmaverify writes it: nlohmann-json, keys in the order they are set.
#pragma once
#include <string>
#include <nlohmann/json.hpp>

using Json = nlohmann::ordered_json;

// One JSON value on one line (`--json` prints one object per line). Invalid UTF-8, as a file
// name or a quoted input may hold, becomes U+FFFD instead of an exception.
inline std::string json_line(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}
