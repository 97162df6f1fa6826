// Conformance of the two transcriptions of the batch: the model's real batch functions
// (model/vma_batch.hpp, the code every exploration runs) against the Z3 transition system the
// proofs are about (proofs/batch_system.hpp). Every layout of file and anonymous VMAs up to a
// length is torn down by the C code; after each C call (add, final) the state it left must be
// the one the matching Z3 step gives from the state before, field by field of the vocabulary.
#pragma once
#include <string>
#include <vector>
#include "proofs/batch_state.hpp"

// What `vmaverify all` checks: every layout of up to 10 VMAs over 3 files (the bound;
// runs of 9 and 10 same-file VMAs cover the full batch).
constexpr int kConformanceVmas = 10, kConformanceFiles = 3;

struct ConformanceResult {
  bool conforms = false;
  long layouts = 0, steps = 0;  // layouts torn down, C calls checked
  std::string message;          // the first disagreement: layout, call, field, both values
};

// Every sequence of up to max_vmas VMAs, each anonymous or of one of max_files files (files
// named in order of first appearance: renaming them changes nothing), with the C batch
// functions under `mutant` ("none": the patch) and the Z3 system unmutated.
ConformanceResult check_batch_conformance(int max_vmas, int max_files, const std::string& mutant = "none");

// The layout's teardown by the same recording objects, in one group (init, add each VMA,
// final), with the state recorded at every batch event but process, as model/mm.cpp records
// it during exploration: the two must give the same states (the vocabulary's one meaning).
std::vector<BatchSnapshot> batch_trail(const BatchSnapshot& layout);
