#include "verify/cli/cli.hpp"

#include "verify/report/safe_write.hpp"

#include <cstdio>
#include <exception>
#include <CLI/CLI.hpp>
#include "verify/report/json_out.hpp"
#include "verify/search/result.hpp"

static std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}
CommandRegistrar::CommandRegistrar(Command c) { commands().push_back(c); }
const std::vector<Command>& all_commands() { return commands(); }

int usage_error(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';  // the contract is one line, whatever the message quotes
  std::fprintf(stderr, "vmaverify: %s\n", line.c_str());
  return EXIT_USAGE;
}

std::string shown(const std::string& value) {
  const size_t most = 80;
  std::string cut = value.size() > most ? value.substr(0, most) + "..." : value;
  return json_line(Json(cut));
}

CLI::Option* only_known(CLI::Option* opt, const std::string& what, std::function<bool(const std::string&)> known,
                        const std::string& hint) {
  return opt->check(CLI::Validator(
      [what, known, hint](std::string& v) {
        return known(v) ? std::string() : "unknown " + what + " " + shown(v) + " (" + hint + ")";
      },
      "", what));
}

static std::string command_names() {
  std::string s;
  for (const Command& c : all_commands()) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

// A parse error as one line, naming the command it belongs to and, through CLI11, the option.
static int parse_error(const CLI::App& app, const CLI::ParseError& e, int argc, const char* const* argv) {
  const auto chosen = app.get_subcommands();
  if (!chosen.empty()) return usage_error(chosen[0]->get_name() + ": " + e.what());
  // No command was recognised: say what stood where the command should be.
  if (argc < 2) return usage_error("a command is required: " + command_names() + " (see vmaverify --help)");
  const std::string first = argv[1];
  if (!first.empty() && first[0] == '-')
    return usage_error("unknown option " + shown(first) + " before the command (see vmaverify --help)");
  return usage_error("unknown command " + shown(first) + "; commands: " + command_names());
}

// A command's output lost on the way (a full disk behind stdout) is no result: exit 2, said.
int run_command_line(int argc, const char* const* argv) {
  const int status = command_line(argc, argv, true);
  std::string err;
  if (!stdout_intact(&err)) return usage_error(err);
  return status;
}

int command_line(int argc, const char* const* argv, bool run) {
  CLI::App app("Model-checked verification of batched unlink_file_vma and i_mmap_rwsem.", "vmaverify");
  app.footer("Exit status: 0 verified/proved, 1 counterexample (or refuted), 2 bad usage or bad input,\n"
             "3 incomplete (a budget ran out), 4 replay did not reproduce the recorded failure.\n"
             "`vmaverify COMMAND --help` shows a command's options.");
  app.require_subcommand(1);
  std::vector<std::pair<const CLI::App*, CommandRun>> runs;
  for (const Command& c : all_commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runs.emplace_back(sub, c.define(*sub));
  }
  const CLI::App* help = app.add_subcommand("help", "The same as --help.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // the help of the command given, or of vmaverify; exit 0
  } catch (const CLI::ParseError& e) {
    return parse_error(app, e, argc, argv);
  } catch (const std::exception& e) {  // a validator's own failure: still the contract's one line
    return usage_error(std::string("bad command line: ") + e.what());
  }
  if (help->parsed()) {
    std::printf("%s", app.get_formatter()->make_help(&app, "vmaverify", CLI::AppFormatMode::Normal).c_str());
    return EXIT_VERIFIED;
  }
  for (const auto& r : runs) {
    if (!r.first->parsed()) continue;
    if (!run) return EXIT_VERIFIED;
    try {
      return r.second();
    } catch (const std::exception& e) {
      return usage_error(r.first->get_name() + ": " + e.what());
    }
  }
  return usage_error("a command is required: " + command_names());
}

// The search forms are the model's (also read from scenario tables and traces): SearchSpec
// parses them, CLI11 reports its error against the option.
CLI::Validator search_form() {
  return CLI::Validator(
      [](std::string& v) {
        SearchSpec s;
        std::string err;
        return SearchSpec::parse(v, &s, &err) ? std::string() : err;
      },
      "", "search");
}
