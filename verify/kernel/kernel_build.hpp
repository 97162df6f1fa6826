// vmaverify kernel: from a kernel tree (and patches) to a checker binary that runs the teardown
// scenarios on the tree's own code. The tree's files are copied to a scratch directory, the
// patches applied there (patch -p1), the functions extracted by name with libclang
// (verify/kernel/kernel_extract.py), compiled against the shim (model/kshim/) and linked with the
// rest of vmaverify (the vmaverify_kernel_base library). Run time, not build time, because
// the tree and the patches are the user's input; cached by the hash of everything that goes
// in, so that a second run with the same tree and patches starts at once.
#pragma once
#include <string>
#include <vector>
#include "verify/kernel/kernel_hunks.hpp"
#include "verify/kernel/kernel_sandbox.hpp"

struct KernelBuild {
  std::string tree;     // the tree given, or the default (Debian's linux-source-6.12)
  std::string checker;  // the checker binary, on success
  std::string error;    // one line naming the input (tree, file, function, patch), on failure
  bool cached = false;  // the checker was already built for exactly this input
  int interrupted = 0;  // the signal that stopped the build (its scratch directories removed)
};

// The default tree: Debian's linux-source-6.12 tarball, extracted (the few files needed) once.
const char* default_kernel_tarball();
bool default_kernel_tree_available();

// The checker's key in the cache: a hash of the extracted translation units (their names and
// text), every file under snapshot_root (the shim, the model and proofs headers, the extraction
// script), the base library's bytes and the compiler command.
std::string checker_cache_key(const std::vector<std::string>& units, const std::string& snapshot_root,
                              const std::string& base_library, const std::string& toolchain);

// tree empty: the default. Never throws; on failure error is set (exit 2). progress: say on
// stderr when the slow steps (extracting the tarball, compiling) begin. A checker built for
// patches, or with count_lines, counts how often each kernel line and branch runs (gcov).
// configs: "CONFIG_NAME=y|n" settings of the tree's rwsem.c that differ from the default
// (kernel_extract.py's RWSEM_CONFIG_DEFAULTS; kernel_config_known checks a setting first).
KernelBuild build_kernel_checker(const std::string& tree, const std::vector<std::string>& patches, bool progress = false,
                                 bool count_lines = false, const std::vector<std::string>& configs = {});
// The settings --config accepts, with the default first: "CONFIG_RWSEM_SPIN_ON_OWNER=y", ...
const std::vector<std::string>& kernel_config_defaults();
bool kernel_config_known(const std::string& setting);

// Before handing over to a checker that counts lines: a fresh directory for its counters
// (GCOV_PREFIX in the environment the checker inherits). False with a message naming the checker.
bool prepare_kernel_line_counts(const std::string& checker, std::string* error);
// In the checker, on every way out: remove that directory (it is in the cache, made for this run).
void discard_kernel_line_counts();
// In the checker: the extracted translation units it was built from (beside it).
std::vector<std::string> kernel_generated_sources();
// In the checker, once the contained child has handed over its gcov counters (gcda): the counts
// as gcov's JSON (one document per translation unit; parse_gcov_json reads the lines,
// kernel_coverage_report the branches). False with why when this checker counts no lines.
bool read_kernel_counters(const std::vector<GcdaFile>& gcda, std::string* gcov_json, std::string* why);
