// The README's usage block ("Using it") against what `vmaverify --help` and `vmaverify CMD
// --help` print: the same commands, positionals, options and option value names.
#include <gtest/gtest.h>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include "tests/run_binary.hpp"

namespace {

// command -> its usage forms: "SCENARIO", "[SPEC_FILE...]", "--mutant NAME", "--json", ...
using Usage = std::map<std::string, std::set<std::string>>;

std::string readme_block() {
  std::ifstream in(VMAVERIFY_README);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  size_t section = text.find("\n## Using it\n");
  size_t open = text.find("```\n", section);
  size_t close = text.find("```", open + 4);
  if (section == std::string::npos || open == std::string::npos || close == std::string::npos) return "";
  return text.substr(open + 4, close - open - 4);
}

// "vmaverify run SCENARIO [--mutant NAME] ..." lines; indented lines continue the command above.
Usage readme_usage() {
  Usage u;
  std::istringstream in(readme_block());
  std::string line, command;
  static const std::regex form(R"(\[(--[^\]]+)\]|(\[[A-Z_]+\.\.\.\])|([A-Z_]+(?:\.\.\.)?))");
  while (std::getline(in, line)) {
    std::string rest = line;
    if (line.rfind("vmaverify ", 0) == 0) {
      std::istringstream words(line.substr(10));
      words >> command;
      u[command];
      rest = line.substr(10 + command.size());
    }
    for (std::sregex_iterator m(rest.begin(), rest.end(), form), end; m != end; ++m)
      u[command].insert((*m)[1].matched ? (*m)[1].str() : (*m)[2].matched ? (*m)[2].str() : (*m)[3].str());
  }
  return u;
}

// From `vmaverify CMD --help`: the positionals of the Usage line and each option's name and value.
std::set<std::string> help_usage(const std::string& command) {
  BinaryRun r = run_vmaverify(command + " --help");
  EXPECT_EQ(r.status, 0) << command;
  std::set<std::string> forms;
  std::istringstream in(r.out);
  static const std::regex usage_line(R"(^Usage: vmaverify \S+ \[OPTIONS\](.*)$)");
  static const std::regex option_line(R"(^  (?:-[a-z],)?(--[a-z-]+)(?: ([^=\s]+))?(?:=\S*)?(?:\s.*)?$)");
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, usage_line)) {
      std::istringstream words(m[1].str());
      for (std::string w; words >> w;) forms.insert(w);
    } else if (std::regex_match(line, m, option_line) && m[1] != "--help") {
      forms.insert(m[2].matched ? m[1].str() + " " + m[2].str() : m[1].str());
    }
  }
  return forms;
}

std::set<std::string> help_commands() {
  BinaryRun r = run_vmaverify("--help");
  EXPECT_EQ(r.status, 0);
  std::set<std::string> commands;
  std::istringstream in(r.out.substr(r.out.find("\nSubcommands:\n") + 1));
  static const std::regex command_line(R"(^  ([a-z]+) .*$)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, command_line)) commands.insert(m[1]);
  return commands;
}

}  // namespace

TEST(ReadmeUsage, SameCommandsAsHelp) {
  Usage readme = readme_usage();
  std::set<std::string> documented;
  for (const auto& c : readme) documented.insert(c.first);
  std::set<std::string> commands = help_commands();
  EXPECT_GE(commands.size(), 6u);
  EXPECT_EQ(documented, commands);
}

TEST(ReadmeUsage, EachCommandsOptionsAsHelpPrintsThem) {
  for (const auto& c : readme_usage()) {
    std::set<std::string> help = help_usage(c.first);
    EXPECT_EQ(c.second, help) << "README usage of `vmaverify " << c.first << "` vs its --help";
  }
}

TEST(ReadmeUsage, ParsesTheRunLine) {
  // The parser itself: the run line must yield its positional and value names.
  std::set<std::string> run = readme_usage()["run"];
  for (const char* form : {"SCENARIO", "--mutant NAME", "--search full|bound:N|random:N", "--budget N", "--trace FILE",
                           "--unbatched", "--json", "--quiet"})
    EXPECT_EQ(run.count(form), 1u) << form;
}

// README, "The two commands": .ci/run (what CI runs) must run the second command, verbatim.
TEST(ReadmeCommands, CiRunIsTheReadmesTestCommand) {
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string readme = read(VMAVERIFY_README);
  const std::string root = std::string(VMAVERIFY_README).substr(0, std::string(VMAVERIFY_README).rfind('/') + 1);
  size_t section = readme.find("\n## The two commands\n");
  ASSERT_NE(section, std::string::npos);
  size_t open = readme.find("```sh\n", section), close = readme.find("```", open + 6);
  std::istringstream block(readme.substr(open + 6, close - open - 6));
  std::string first, second;
  std::getline(block, first);
  std::getline(block, second);
  const std::string command = second.substr(0, second.find("   #"));
  EXPECT_NE(command.find("ctest"), std::string::npos) << command;
  EXPECT_NE(command.find("vmaverify all"), std::string::npos) << "the test command must also run the verification";
  const std::string ci = read(root + ".ci/run");
  EXPECT_NE(ci.find("\n" + command + "\n"), std::string::npos) << "'" << command << "' not in .ci/run:\n" << ci;
}
