// The kernel checker's cache key covers everything the checker is built from: a checker built
// from other shim, model or proofs headers, another extraction or another compiler command is
// never taken from the cache for this one.
#include <gtest/gtest.h>
#include <cstdlib>
#include <fstream>
#include <string>
#include "verify/kernel/kernel_build.hpp"

namespace {

void write(const std::string& path, const std::string& text) {
  std::system(("mkdir -p '" + path.substr(0, path.rfind('/')) + "'").c_str());
  std::ofstream(path) << text;
}

struct Snapshot {
  std::string root = testing::TempDir() + "cache_key_snapshot";
  std::string unit = testing::TempDir() + "cache_key_unit/vmaverify_kernel_rwsem.cpp";
  Snapshot() {
    std::system(("rm -rf '" + root + "'").c_str());
    write(root + "/model/kshim/rwsem.h", "#define need_resched() false\n");
    write(root + "/model/sched.hpp", "inline void schedule() {}\n");
    write(root + "/proofs/batch_state.hpp", "struct batch_state {};\n");
    write(root + "/verify/kernel/kernel_extract.py", "print(1)\n");
    write(unit, "void __up_write() {}\n");
  }
  std::string key(const std::string& base = "base", const std::string& toolchain = "g++ -O2") const {
    return checker_cache_key({unit}, root, base, toolchain);
  }
};

}  // namespace

TEST(KernelCacheKey, EveryInputChangesTheKey) {
  Snapshot s;
  const std::string k = s.key();
  EXPECT_EQ(k.size(), 16u);
  EXPECT_EQ(s.key(), k) << "the same inputs give the same key";

  write(s.root + "/model/kshim/rwsem.h", "#define need_resched() true\n");  // the shim
  const std::string shim = s.key();
  EXPECT_NE(shim, k);
  write(s.root + "/model/sched.hpp", "inline void schedule() { /* edited */ }\n");  // a model header
  const std::string model = s.key();
  EXPECT_NE(model, shim);
  write(s.root + "/proofs/batch_state.hpp", "struct batch_state { int n; };\n");  // proofs, included by the shim
  const std::string proofs = s.key();
  EXPECT_NE(proofs, model);
  write(s.root + "/model/new_subsystem.hpp", "\n");  // a new file
  const std::string added = s.key();
  EXPECT_NE(added, proofs);
  write(s.root + "/verify/kernel/kernel_extract.py", "print(2)\n");  // the extraction
  const std::string extract = s.key();
  EXPECT_NE(extract, added);
  write(s.unit, "void __up_write() { /* patched */ }\n");  // the extracted kernel code
  const std::string unit = s.key();
  EXPECT_NE(unit, extract);
  EXPECT_NE(s.key("other base"), unit);        // the base library
  EXPECT_NE(s.key("base", "g++ -O0"), unit);  // the compiler command
}
