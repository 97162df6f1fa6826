// The command line (CLI11): every bad value, unknown flag, missing value and unknown command is
// exit 2 with one line on stderr naming what was wrong; --help is exit 0 on stdout.
#include <gtest/gtest.h>
#include <string>
#include "tests/run_binary.hpp"
#include "verify/cli/cli.hpp"

struct BadLine {
  const char* args;
  const char* says;  // part of the one stderr line: the option or argument at fault
};

class CliBadInput : public testing::TestWithParam<BadLine> {};
TEST_P(CliBadInput, ExitsTwoWithOneLineNamingIt) {
  BinaryRun r = run_vmaverify(GetParam().args);
  expect_usage_error(r, GetParam().args);
  EXPECT_NE(r.err.find(GetParam().says), std::string::npos) << GetParam().args << "\nstderr: " << r.err;
}
INSTANTIATE_TEST_SUITE_P(
    All, CliBadInput,
    testing::Values(
        // run: typed and validated options
        BadLine{"run rwsem_two_writers --budget 0", "run: --budget: Value 0 not in range 1"},
        BadLine{"run rwsem_two_writers --budget -1", "run: --budget: Value -1 not in range 1"},
        BadLine{"run rwsem_two_writers --budget x", "run: --budget: Value x not in range 1"},
        BadLine{"run rwsem_two_writers --budget 1.5", "run: --budget: Value 1.5"},
        BadLine{"run rwsem_two_writers --budget 99999999999999999999", "run: --budget: Value 99999999999999999999"},
        BadLine{"run rwsem_two_writers --budget=", "run: --budget"},
        BadLine{"run rwsem_two_writers --budget", "run: --budget: 1 required N missing"},
        BadLine{"run rwsem_two_writers --search bogus", "run: --search: bad search 'bogus'"},
        BadLine{"run rwsem_two_writers --search bound:", "run: --search: bad search 'bound:'"},
        BadLine{"run rwsem_two_writers --search bound:x", "run: --search: bad search 'bound:x'"},
        BadLine{"run rwsem_two_writers --search random:0", "run: --search: bad search 'random:0'"},
        BadLine{"run rwsem_two_writers --search full:1", "run: --search: bad search 'full:1'"},
        BadLine{"run rwsem_two_writers --search", "run: --search: 1 required"},
        BadLine{"run rwsem_two_writers --mutant nope", "run: --mutant: unknown mutant \"nope\""},
        BadLine{"run rwsem_two_writers --mutant", "run: --mutant: 1 required NAME missing"},
        BadLine{"run rwsem_two_writers --trace", "run: --trace: 1 required FILE missing"},
        BadLine{"run rwsem_two_writers --frobnicate", "run: The following argument was not expected: --frobnicate"},
        BadLine{"run rwsem_two_writers --json=maybe", "run: Could not convert: --json = maybe"},
        BadLine{"run rwsem_two_writers rwsem_two_writers", "run: The following argument was not expected: rwsem_two_writers"},
        BadLine{"run no_such_scenario", "run: SCENARIO: unknown scenario \"no_such_scenario\""},
        BadLine{"run", "run: SCENARIO is required"},
        // the other commands
        BadLine{"list --frobnicate", "list: The following argument was not expected: --frobnicate"},
        BadLine{"list extra", "list: The following argument was not expected: extra"},
        BadLine{"replay", "replay: TRACE_FILE is required"},
        BadLine{"replay a.json b.json", "replay: The following argument was not expected: b.json"},
        BadLine{"replay a.json --frobnicate", "replay: The following argument was not expected: --frobnicate"},
        BadLine{"prove --mutant no_such_mutant", "prove: --mutant: unknown batch mutant \"no_such_mutant\""},
        BadLine{"prove --mutant", "prove: --mutant: 1 required NAME missing"},
        BadLine{"prove --frobnicate", "prove: The following argument was not expected: --frobnicate"},
        BadLine{"maps", "maps: expected FILE... or --all-processes"},
        BadLine{"maps --frobnicate", "maps: The following argument was not expected: --frobnicate"},
        BadLine{"all --junit", "all: --junit: 1 required FILE missing"},
        BadLine{"all --traces", "all: --traces: 1 required DIR missing"},
        BadLine{"all extra", "all: The following argument was not expected: extra"},
        BadLine{"all --frobnicate", "all: The following argument was not expected: --frobnicate"},
        // no command, or none that exists
        BadLine{"", "a command is required: "},
        BadLine{"explode", "unknown command \"explode\""},
        BadLine{"--frobnicate", "unknown option \"--frobnicate\" before the command"},
        BadLine{"--frobnicate list", "list: The following argument was not expected: --frobnicate"}),
    [](const testing::TestParamInfo<BadLine>& i) {
      std::string name = std::to_string(i.index) + "_" + i.param.args;
      for (char& c : name)
        if (!isalnum((unsigned char)c)) c = '_';
      return name;
    });

TEST(CliHelp, EveryCommandListsItsOptionsOnStdoutExitZero) {
  ASSERT_FALSE(all_commands().empty());
  for (const Command& c : all_commands()) {
    BinaryRun r = run_vmaverify(std::string(c.name) + " --help");
    EXPECT_EQ(r.status, 0) << c.name << ": " << r.err;
    EXPECT_EQ(r.err, "") << c.name;
    EXPECT_NE(r.out.find(std::string("Usage: vmaverify ") + c.name + " [OPTIONS]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("-h,--help"), std::string::npos) << r.out;
  }
}

TEST(CliHelp, RunHelpGivesUnitsAndDefaults) {
  BinaryRun r = run_vmaverify("run --help");
  ASSERT_EQ(r.status, 0);
  for (const char* says : {"--budget N", "iterations", "Default: no limit", "--mutant NAME=none",
                           "--search full|bound:N|random:N", "preemptions", "Default: the scenario's own"})
    EXPECT_NE(r.out.find(says), std::string::npos) << says << "\n" << r.out;
}

TEST(CliHelp, TopLevelListsEveryCommand) {
  for (const char* args : {"--help", "-h", "help"}) {
    BinaryRun r = run_vmaverify(args);
    EXPECT_EQ(r.status, 0) << args;
    EXPECT_EQ(r.err, "") << args;
    for (const Command& c : all_commands())
      EXPECT_NE(r.out.find(std::string("\n  ") + c.name + " "), std::string::npos) << args << ": " << c.name;
  }
}
