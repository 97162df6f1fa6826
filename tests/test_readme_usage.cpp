// The documentation against the tool. The usage block of verify/README.md ("Using it") against
// what `vmaverify --help` and `vmaverify CMD --help` print: the same commands, positionals,
// options and option value names. README.md's "The two commands" against .ci/run. Every scenario
// and mutant of `vmaverify list` documented; README.md short, its relative links resolving; no
// Markdown file pointing outside the repository (../shared).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "tests/run_binary.hpp"

namespace {

// command -> its usage forms: "SCENARIO", "[SPEC_FILE...]", "--mutant NAME", "--json", ...
using Usage = std::map<std::string, std::set<std::string>>;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The command reference, where the usage block lives.
const std::string kCommandReference = std::string(VMAVERIFY_SOURCE) + "/verify/README.md";

std::string readme_block() {
  const std::string text = read_file(kCommandReference);
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
  ASSERT_FALSE(readme_block().empty()) << "no usage block under \"## Using it\" in " << kCommandReference;
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
    EXPECT_EQ(c.second, help) << "verify/README.md usage of `vmaverify " << c.first << "` vs its --help";
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

namespace {

namespace fs = std::filesystem;

// Relative link targets of a Markdown text: "](target)" not starting with a scheme or "#".
std::vector<std::string> relative_links(const std::string& text) {
  std::vector<std::string> links;
  static const std::regex link(R"(\]\(([^)\s]+)\))");
  for (std::sregex_iterator m(text.begin(), text.end(), link), end; m != end; ++m) {
    const std::string target = (*m)[1];
    if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0 || target[0] == '#') continue;
    links.push_back(target);
  }
  return links;
}

// GitHub's anchor of a heading: lower case, punctuation other than '-' and '_' dropped, spaces
// turned into '-'.
std::set<std::string> heading_anchors(const std::string& text) {
  std::set<std::string> anchors;
  std::istringstream in(text);
  bool code = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) code = !code;
    if (code || line.empty() || line[0] != '#') continue;
    size_t start = line.find_first_not_of('#');
    if (start == std::string::npos || line[start] != ' ') continue;
    std::string anchor;
    for (char c : line.substr(start + 1)) {
      unsigned char u = static_cast<unsigned char>(c);
      if (std::isalnum(u)) anchor += static_cast<char>(std::tolower(u));
      else if (c == ' ' || c == '-') anchor += '-';
      else if (c == '_') anchor += '_';
    }
    anchors.insert(anchor);
  }
  return anchors;
}

// README.md and the reference pages it links to, concatenated.
std::string documentation() {
  const fs::path readme(VMAVERIFY_README);
  std::string docs = read_file(readme.string());
  std::set<fs::path> pages;
  for (const std::string& link : relative_links(docs)) {
    fs::path page = (readme.parent_path() / link.substr(0, link.find('#'))).lexically_normal();
    if (page.extension() == ".md" && pages.insert(page).second) docs += "\n" + read_file(page.string());
  }
  return docs;
}

}  // namespace

// Every scenario and every mutant the binary has is documented (its name in backquotes).
TEST(ReadmeDocs, EveryScenarioAndMutantIsDocumented) {
  BinaryRun r = run_vmaverify("list --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json list = nlohmann::json::parse(r.out);
  const std::string docs = documentation();
  ASSERT_GE(list.at("scenarios").size(), 1u);
  ASSERT_GE(list.at("mutants").size(), 1u);
  for (const char* group : {"scenarios", "mutants"})
    for (const auto& item : list.at(group)) {
      const std::string name = item.at("name").get<std::string>();
      EXPECT_NE(docs.find("`" + name + "`"), std::string::npos)
          << group << ": `" << name << "` is in `vmaverify list` but in neither README.md nor a page it links to";
    }
}

// README.md is the first page: short, and every relative link in it (file and heading) resolves.
TEST(ReadmeDocs, ReadmeIsShortAndItsLinksResolve) {
  const fs::path readme(VMAVERIFY_README);
  const std::string text = read_file(readme.string());
  ASSERT_FALSE(text.empty());
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_LE(lines, 160u) << "README.md has " << lines << " lines: move the detail to a reference page";
  const std::vector<std::string> links = relative_links(text);
  EXPECT_GE(links.size(), 5u);
  for (const std::string& link : links) {
    const size_t hash = link.find('#');
    const fs::path target = readme.parent_path() / link.substr(0, hash);
    EXPECT_TRUE(fs::exists(target)) << "README.md links to " << link << ", which does not exist";
    if (hash != std::string::npos && fs::exists(target) && target.extension() == ".md") {
      EXPECT_EQ(heading_anchors(read_file(target.string())).count(link.substr(hash + 1)), 1u)
          << "README.md links to " << link << ": no such heading";
    }
  }
  EXPECT_EQ(heading_anchors(text).count("the-two-commands"), 1u);
}

// The documentation is self-contained: no Markdown file of the repository points at ../shared
// (outside the checkout).
TEST(ReadmeDocs, NoMarkdownPointsOutsideTheRepository) {
  const fs::path root(VMAVERIFY_SOURCE);
  size_t checked = 0;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name == ".git" || name.rfind("vmaverify-", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".md") continue;
    checked++;
    EXPECT_EQ(read_file(it->path().string()).find("../shared"), std::string::npos)
        << it->path() << " points at ../shared: write what is needed in the repository";
  }
  EXPECT_GE(checked, 2u);
}

