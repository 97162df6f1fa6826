// The vmaverify command line (CLI11): each subcommand is one file that registers itself.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

// Exit statuses of the command-line contract.
// EXIT_NOT_REPRODUCED: replay ran the recorded interleaving and it did not fail the recorded way.
enum ExitStatus { EXIT_VERIFIED = 0, EXIT_COUNTEREXAMPLE = 1, EXIT_USAGE = 2, EXIT_INCOMPLETE = 3, EXIT_NOT_REPRODUCED = 4 };

// What a command does once its arguments are parsed: returns the exit status.
using CommandRun = std::function<int()>;

struct Command {
  const char* name;
  const char* description;  // one line, shown by --help
  // Declare the command's positionals and options on its CLI11 subcommand; the returned
  // function reads what they were bound to.
  CommandRun (*define)(CLI::App& cmd);
};
struct CommandRegistrar {
  explicit CommandRegistrar(Command c);
};
const std::vector<Command>& all_commands();

// Parse argv and run the command it names. Usage errors are one line on stderr, exit 2;
// `--help` (top level or after a command) prints to stdout, exit 0.
int run_command_line(int argc, const char* const* argv);
// The same, but with run false only parses and validates: 0 where the command would run.
int command_line(int argc, const char* const* argv, bool run);

// Accept only values `known` says exist; otherwise the error `unknown WHAT "VALUE" (HINT)`.
CLI::Option* only_known(CLI::Option* opt, const std::string& what, std::function<bool(const std::string&)> known,
                        const std::string& hint = "see vmaverify list");

// "vmaverify: MESSAGE" on stderr, on one line; returns EXIT_USAGE.
int usage_error(const std::string& message);
// VALUE quoted and escaped as a JSON string, shortened: for echoing untrusted input in one line.
std::string shown(const std::string& value);
// --search's check: full, full+reduce, bound:N or random:N (SearchSpec::parse's error otherwise).
CLI::Validator search_form();
