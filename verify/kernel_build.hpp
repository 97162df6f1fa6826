// vmaverify kernel: from a kernel tree (and patches) to a checker binary that runs the teardown
// scenarios on the tree's own code. The tree's files are copied to a scratch directory, the
// patches applied there (patch -p1), the functions extracted by name with libclang
// (verify/kernel_extract.py), compiled against the shim (model/kshim/) and linked with the
// rest of vmaverify (the vmaverify_kernel_base library). Run time, not build time, because
// the tree and the patches are the user's input; cached by the hash of everything that goes
// in, so that a second run with the same tree and patches starts at once.
#pragma once
#include <string>
#include <vector>

struct KernelBuild {
  std::string tree;     // the tree given, or the default (Debian's linux-source-6.12)
  std::string checker;  // the checker binary, on success
  std::string error;    // one line naming the input (tree, file, function, patch), on failure
  bool cached = false;  // the checker was already built for exactly this input
};

// The default tree: Debian's linux-source-6.12 tarball, extracted (the few files needed) once.
const char* default_kernel_tarball();
bool default_kernel_tree_available();

// tree empty: the default. Never throws; on failure error is set (exit 2). progress: say on
// stderr when the slow steps (extracting the tarball, compiling) begin.
KernelBuild build_kernel_checker(const std::string& tree, const std::vector<std::string>& patches, bool progress = false);
