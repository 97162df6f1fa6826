// Spec files: one invariant each, SMT-LIB 2 over the batch state vocabulary.
#pragma once
#include <z3++.h>
#include <string>
#include <vector>
#include "proofs/batch_system.hpp"

struct Spec {
  std::string path, name, text;          // name: file name without directory and .smt2
  std::vector<std::string> assumes;      // "; assumes: A B": specs taken as hypotheses in the induction step
  int assumes_line = 0;
  int trace_length = 0;                  // "; mode: trace N": checked after every teardown of <= N VMAs
  bool is_trace() const { return trace_length > 0; }
};

// False with *error ("PATH:LINE: message") when the file cannot be read or its header is malformed.
// Limits: kMaxSpecBytes, kMaxSpecDepth, kMaxTraceLength (spec_syntax.hpp).
bool load_spec(const std::string& path, Spec* out, std::string* error);
// From now on, load_spec answers for these files (and only these) from their text as it is now,
// without touching the file system: for a process that may not open files (the kernel checker's
// contained child, verify/kernel/kernel_sandbox.hpp). Other paths give "cannot read spec file".
void freeze_spec_files(const std::vector<std::string>& paths);
bool spec_files_frozen();
// The same from the file's text.
bool spec_from_text(const std::string& path, const std::string& text, Spec* out, std::string* error);

// The names a spec may use, as constants of one context.
struct Vocabulary {
  BatchState state;  // one constant per state field, named like it
  z3::expr n, seq;   // trace specs only: the teardown length and position -> VMA id
  z3::func_decl_vector decls;
  z3::expr_vector consts;  // the constants of state (then n, seq), in state_fields() order
  Vocabulary(z3::context& c, bool trace);
};

// The conjunction of the spec's assertions over v; false with *error naming the file, the
// line and Z3's message when the spec does not parse, uses an unknown name or is not Boolean.
bool parse_spec(z3::context& c, const Spec& spec, const Vocabulary& v, z3::expr* out, std::string* error);

// The Boolean the spec defines as (define-fun NAME () Bool ...), over v; false with *error
// empty when the spec defines no such name, set when the definition is malformed.
bool parse_defined_bool(z3::context& c, const Spec& spec, const Vocabulary& v, const std::string& name, z3::expr* out,
                        std::string* error);

// The state terms of s in the order of Vocabulary::consts (without n and seq).
z3::expr_vector state_terms(z3::context& c, const BatchState& s);
// A parsed spec (no define-fun-rec reading the state) evaluated at state s.
z3::expr spec_at(const z3::expr& spec, const Vocabulary& v, const BatchState& s);
