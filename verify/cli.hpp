// The vmaverify command line: each subcommand is one file that registers itself.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>
#include "verify/result.hpp"

// Exit statuses of the command-line contract.
enum ExitStatus { EXIT_VERIFIED = 0, EXIT_COUNTEREXAMPLE = 1, EXIT_USAGE = 2, EXIT_INCOMPLETE = 3 };

struct Command {
  const char* name;
  const char* usage;
  int (*run)(const std::vector<std::string>& args);
};
struct CommandRegistrar {
  explicit CommandRegistrar(Command c);
};
const std::vector<Command>& all_commands();

// Parsed arguments: flags that take a value, boolean flags, and the rest.
struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;
  std::set<std::string> switches;
  bool has(const std::string& f) const { return switches.count(f) || values.count(f); }
  std::string get(const std::string& f, const std::string& dflt = "") const {
    auto it = values.find(f);
    return it == values.end() ? dflt : it->second;
  }
};
// False with *err naming the offending argument when a flag is unknown or lacks its value.
bool parse_args(const std::vector<std::string>& in, const std::set<std::string>& value_flags,
                const std::set<std::string>& bool_flags, Args* out, std::string* err);

// "vmaverify: MESSAGE" on stderr; returns EXIT_USAGE.
int usage_error(const std::string& message);

// Exit status of one exploration result.
int exit_status(const RunResult& r);

// One line of text, or one JSON object, per result.
std::string result_text(const RunResult& r);
std::string result_json(const RunResult& r);
