// vmaverify: model-checked verification of batched unlink_file_vma and i_mmap_rwsem.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>
#include "verify/cli.hpp"

static int help(FILE* to) {
  std::fprintf(to, "usage:\n");
  for (const Command& c : all_commands()) std::fprintf(to, "  vmaverify %s\n", c.usage);
  std::fprintf(to, "exit status: 0 verified/proved, 1 counterexample, 2 bad usage or input, 3 incomplete\n");
  return to == stdout ? 0 : EXIT_USAGE;
}

int main(int argc, char** argv) {
  if (argc < 2) return help(stderr);
  std::string name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") return help(stdout);
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const Command& c : all_commands()) {
    if (name != c.name) continue;
    try {
      return c.run(args);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "vmaverify %s: %s\n", c.name, e.what());
      return EXIT_USAGE;
    }
  }
  usage_error("unknown command '" + name + "' (try: vmaverify --help)");
  return EXIT_USAGE;
}
