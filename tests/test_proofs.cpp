// The Z3 side: the default specs are proved, every batch mutant is refuted, false and
// malformed specs are reported as such, and concrete states are checked against the specs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include "proofs/concrete_eval.hpp"
#include "proofs/prover.hpp"
#include "proofs/spec_file.hpp"

namespace {

// A spec file in a fresh temporary directory, removed with it.
class TempSpec {
 public:
  TempSpec(const std::string& name, const std::string& text) {
    char dir[] = "/tmp/vmaverify-specs-XXXXXX";
    dir_ = mkdtemp(dir);
    path_ = dir_ + "/" + name + ".smt2";
    std::ofstream(path_) << text;
  }
  ~TempSpec() {
    std::remove(path_.c_str());
    rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

ProofResult prove_one(const std::string& path, const std::string& mutant = "none") {
  std::vector<ProofResult> r = prove_specs({path}, mutant);
  EXPECT_EQ(r.size(), 1u);
  return r.empty() ? ProofResult() : r[0];
}

int run_cli(const std::string& args) {
  int status = std::system((std::string(VMAVERIFY_BIN) + " prove " + args + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(ProofSpecs, EveryDefaultSpecIsProved) {
  std::vector<std::string> files = default_spec_files();
  std::vector<ProofResult> results = prove_specs(files);
  ASSERT_EQ(results.size(), files.size());
  std::map<std::string, std::string> by_name;
  for (const ProofResult& r : results) {
    by_name[r.spec] = r.result;
    EXPECT_EQ(r.result, "proved") << r.spec << ": " << r.message << "\n" << r.counterexample;
    EXPECT_EQ(r.mutant, "none");
  }
  for (const char* required :
       {"same_mapping", "count_bounded", "file_backed", "exactly_once", "removal_order", "lock_round_trips"})
    EXPECT_EQ(by_name[required], "proved") << required;
}

TEST(ProofSpecs, RoundTripsHoldForEveryLength) {
  ProofResult r = prove_one(std::string(VMAVERIFY_SPECS_DIR) + "/lock_round_trips.smt2");
  EXPECT_EQ(r.result, "proved");
  EXPECT_EQ(r.method, "trace:16");
  EXPECT_NE(r.message.find("prefix_invariant is inductive"), std::string::npos) << r.message;
}

TEST(ProofMutants, NamesMatchTheModel) {
  EXPECT_EQ(batch_mutant_names(),
            (std::vector<std::string>{"batch_no_flush_on_other_file", "batch_no_flush_when_full", "batch_anon_vma_added",
                                      "batch_process_skips_last", "batch_final_forgotten",
                                      "batch_flush_compares_mapping", "batch_double_remove"}));
}

class ProofMutant : public testing::TestWithParam<const char*> {};
TEST_P(ProofMutant, RefutedByASpecWithACounterexample) {
  ProofResult r = refute_batch_mutant(default_spec_files(), GetParam());
  EXPECT_EQ(r.mutant, GetParam());
  EXPECT_EQ(r.result, "refuted") << r.message;
  EXPECT_FALSE(r.spec.empty());
  EXPECT_NE(r.counterexample.find("count="), std::string::npos) << r.counterexample;
}
INSTANTIATE_TEST_SUITE_P(All, ProofMutant,
                         testing::Values("batch_no_flush_on_other_file", "batch_no_flush_when_full",
                                         "batch_anon_vma_added", "batch_process_skips_last", "batch_final_forgotten",
                                         "batch_flush_compares_mapping", "batch_double_remove"));

TEST(ProofSpecs, FalseInvariantIsRefutedWithAReadableStep) {
  TempSpec spec("small_batch", "; A batch never holds more than 3 VMAs (false).\n(assert (<= count 3))\n");
  ProofResult r = prove_one(spec.path());
  EXPECT_EQ(r.result, "refuted");
  EXPECT_EQ(r.spec, "small_batch");
  // False, not merely not inductive: bounded unrolling from init reaches a 4-VMA batch.
  EXPECT_EQ(r.message.rfind("false: not preserved by add, and a state violating it is reachable: init, add(vma ", 0), 0u)
      << r.message;
  // The counterexample is that run, state by state: from init to the 4-VMA batch it reaches.
  for (const char* part : {"the run, state by state:\nafter init:\n  count=0", "after add(vma ", "count=3 vmas=[",
                           "count=4", "(violates small_batch):\n  count=4", "vm_file: "})
    EXPECT_NE(r.counterexample.find(part), std::string::npos) << part << " in\n" << r.counterexample;
  EXPECT_EQ(r.counterexample.find("from state"), std::string::npos) << "an unrelated induction state:\n" << r.counterexample;
}

// True of every reachable state but not inductive alone: a state with a VMA batched twice
// would remove it twice. exactly_once (which forbids that state) is suggested.
TEST(ProofSpecs, NotInductiveIsToldFromFalseAndSuggestsAssumptions) {
  TempSpec spec("removed_at_most_once", "(assert (forall ((v Int)) (<= (select removed v) 1)))\n");
  ProofResult r = prove_one(spec.path());
  EXPECT_EQ(r.result, "refuted");
  EXPECT_EQ(r.message.rfind("not inductive: not preserved by ", 0), 0u) << r.message;
  EXPECT_NE(r.message.find("from a state no run of up to 10 steps from init reaches"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("'; assumes: "), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("exactly_once"), std::string::npos) << r.message;
}

TEST(ProofSpecs, FalseTraceSpecIsRefutedWithTheTeardown) {
  TempSpec spec("one_trip", "; mode: trace 4\n(assert (<= lock_round_trips 1))\n");
  ProofResult r = prove_one(spec.path());
  EXPECT_EQ(r.result, "refuted");
  EXPECT_EQ(r.method, "trace:4");
  EXPECT_NE(r.counterexample.find("init add("), std::string::npos) << r.counterexample;
  EXPECT_NE(r.counterexample.find("lock_round_trips=2"), std::string::npos) << r.counterexample;
}

TEST(ProofSpecs, FalseInitialStateIsReported) {
  TempSpec spec("nonempty", "(assert (> count 0))\n");
  ProofResult r = prove_one(spec.path());
  EXPECT_EQ(r.result, "refuted");
  EXPECT_EQ(r.message, "does not hold after init");
}

TEST(ProofSpecs, RelyingOnARefutedSpecIsNotAProof) {
  TempSpec bad("at_most_three", "(assert (<= count 3))\n");
  std::string dir = bad.path().substr(0, bad.path().rfind('/'));
  std::ofstream(dir + "/leans.smt2") << "; assumes: at_most_three\n(assert (<= count 5))\n";
  ProofResult r = prove_one(dir + "/leans.smt2");
  std::remove((dir + "/leans.smt2").c_str());
  EXPECT_EQ(r.result, "refuted");
  EXPECT_NE(r.message.find("at_most_three"), std::string::npos) << r.message;
}

struct Malformed {
  const char* text;
  const char* line;     // ":N:" the error must point at
  const char* message;  // part of Z3's message
};
class ProofMalformedSpec : public testing::TestWithParam<Malformed> {};
TEST_P(ProofMalformedSpec, IsAnErrorNamingFileLineAndZ3Message) {
  TempSpec spec("broken", GetParam().text);
  ProofResult r = prove_one(spec.path());
  EXPECT_EQ(r.result, "error");
  EXPECT_NE(r.message.find(spec.path() + GetParam().line), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(GetParam().message), std::string::npos) << r.message;
  EXPECT_EQ(run_cli(spec.path()), 2);
}
INSTANTIATE_TEST_SUITE_P(
    All, ProofMalformedSpec,
    // An unclosed command is reported on its own line, not on the line after the file's end.
    testing::Values(Malformed{"; unbalanced\n(assert (<= count 8)\n", ":2:", "'(' never closed"},
                    Malformed{"; a\n; b\n(assert true)\n(assert\n", ":4:", "'(' never closed"},
                    Malformed{"; typo\n\n(assert (> cnt 0))\n", ":3:", "unknown constant cnt"},
                    Malformed{"(assert\n  (+ count 1))\n", ":2:", "not Boolean"},
                    Malformed{"(assert (select vmas 0 1))\n", ":1:", "select"},
                    Malformed{"(declare-const x Int)\n(assert (> x count))\n", ":1:", "may not declare"},
                    Malformed{"; assumes: no_such_spec\n(assert true)\n", ":1:", "not found"},
                    Malformed{"; mode: sometimes\n(assert true)\n", ":1:", "unknown mode"},
                    Malformed{"; nothing asserted\n(define-fun f () Bool true)\n", ":2:", "no (assert"},
                    Malformed{"(define-fun-rec f ((i Int)) Int\n  (ite (<= i 0) count (f (- i 1))))\n(assert (>= (f 3) 0))\n",
                              ":1:", "recursive helper f reads count"}));

TEST(ProofSpecs, MissingFileIsAnError) {
  ProofResult r = prove_one("/nonexistent/spec.smt2");
  EXPECT_EQ(r.result, "error");
  EXPECT_NE(r.message.find("/nonexistent/spec.smt2"), std::string::npos);
  EXPECT_EQ(run_cli("/nonexistent/spec.smt2"), 2);
}

TEST(ProofCommand, ExitStatusFollowsTheResults) {
  TempSpec ok("bounded", "(assert (<= 0 count 8))\n");
  TempSpec bad("small_batch", "(assert (<= count 3))\n");
  EXPECT_EQ(run_cli(ok.path()), 0);
  EXPECT_EQ(run_cli(ok.path() + " " + bad.path()), 1);
  EXPECT_EQ(run_cli("--mutant no_such_mutant"), 2);
}

// The batch as the patch writes it, on concrete VMAs: the states a model run reaches.
namespace {

class ConcreteBatch {
 public:
  explicit ConcreteBatch(const std::vector<int>& files) {
    s_.nvmas = (int)files.size();
    for (int v = 0; v < s_.nvmas; v++) s_.vm_file[v] = files[v];
    for (int f = 0; f < SNAPSHOT_MAX_FILES; f++) s_.f_mapping[f] = 100 + f / 2;  // two files per mapping
    for (int& slot : s_.vmas) slot = -1;
  }
  void add(int v) {
    s_.added[v]++;
    s_.finalized = false;
    if (s_.vm_file[v] == 0) return;
    if ((s_.count > 0 && s_.vm_file[s_.vmas[0]] != s_.vm_file[v]) || s_.count == BATCH_SLOTS) process();
    s_.vmas[s_.count++] = v;
    s_.append_seq[v] = ++s_.appends;
  }
  void finish() {
    if (s_.count > 0) process();
    s_.finalized = true;
  }
  const BatchSnapshot& state() const { return s_; }

 private:
  void process() {
    s_.lock_round_trips++;
    for (int i = 0; i < s_.count; i++) {
      s_.removed[s_.vmas[i]]++;
      s_.remove_seq[s_.vmas[i]] = ++s_.removals;
      s_.vmas[i] = -1;
    }
    s_.count = 0;
  }
  BatchSnapshot s_;
};

// Every state of random teardowns of up to 16 VMAs over 3 files and anonymous ones.
std::vector<BatchSnapshot> random_teardown_states(int teardowns) {
  std::mt19937 rng(42);
  std::vector<BatchSnapshot> states;
  for (int t = 0; t < teardowns; t++) {
    int n = 1 + rng() % SNAPSHOT_MAX_VMAS;
    std::vector<int> files(n);
    for (int& f : files) f = rng() % 4;  // 0 = anonymous
    ConcreteBatch b(files);
    states.push_back(b.state());
    for (int v = 0; v < n; v++) {
      b.add(v);
      states.push_back(b.state());
    }
    b.finish();
    states.push_back(b.state());
  }
  return states;
}

}  // namespace

TEST(ProofStates, ReachedStatesSatisfyEverySpec) {
  std::vector<BatchSnapshot> states = random_teardown_states(300);
  std::string spec, message;
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(check_states_against_specs(states, default_spec_files(), &spec, &message)) << spec << ": " << message;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(states.size() / seconds, 1000.0) << states.size() << " states in " << seconds << " s";
}

TEST(ProofStates, ViolationsNameTheSpec) {
  ConcreteBatch b({1, 1, 0, 2});
  for (int v = 0; v < 4; v++) b.add(v);  // removes VMAs 0 and 1, leaves 3 batched
  std::string spec, message;
  ASSERT_TRUE(check_states_against_specs({b.state()}, default_spec_files(), &spec, &message)) << message;

  BatchSnapshot removed_while_batched = b.state();
  removed_while_batched.removed[3] = 1;
  EXPECT_FALSE(check_states_against_specs({removed_while_batched}, default_spec_files(), &spec, &message));
  EXPECT_EQ(spec, "exactly_once");
  EXPECT_NE(message.find("count=1 vmas=[3]"), std::string::npos) << message;

  BatchSnapshot anon_batched = b.state();
  anon_batched.vmas[1] = 2;
  anon_batched.count = 2;
  EXPECT_FALSE(check_states_against_specs({anon_batched}, default_spec_files(), &spec, &message));
  EXPECT_EQ(spec, "exactly_once");  // first in order; file_backed and same_mapping fail too

  BatchSnapshot overfull = b.state();
  overfull.count = 9;
  EXPECT_FALSE(check_states_against_specs({overfull}, default_spec_files(), &spec, &message));
  EXPECT_EQ(spec, "count_bounded");
}

TEST(ProofStates, MalformedSpecIsReported) {
  TempSpec spec("broken", "(assert (> cnt 0))\n");
  std::string violated, message;
  bool malformed = false;
  EXPECT_FALSE(check_states_against_specs({BatchSnapshot()}, {spec.path()}, &violated, &message, &malformed));
  EXPECT_EQ(violated, "broken");
  EXPECT_NE(message.find("unknown constant cnt"), std::string::npos) << message;
  EXPECT_TRUE(malformed);  // bad input (run exits 2), not a state violating a spec
  TempSpec refused("resets", "(assert false)\n(reset)\n(assert true)\n");
  EXPECT_FALSE(check_states_against_specs({BatchSnapshot()}, {refused.path()}, &violated, &message, &malformed));
  EXPECT_TRUE(malformed);
  EXPECT_NE(message.find("resets.smt2:2: command 'reset' is not allowed"), std::string::npos) << message;
  BatchSnapshot overfull;
  overfull.count = 9;
  EXPECT_FALSE(check_states_against_specs({overfull}, default_spec_files(), &violated, &message, &malformed));
  EXPECT_FALSE(malformed);
}

// The solver-free interpreter agrees with Z3 on every default spec, on random states that
// mostly violate them.
TEST(ProofStates, InterpreterAgreesWithZ3) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return lo + (int)(rng() % (unsigned)(hi - lo + 1)); };
  z3::context c;
  Vocabulary voc(c, false);
  z3::solver solver(c);
  int compared = 0, held = 0;
  for (const std::string& path : default_spec_files()) {
    Spec spec;
    std::string err;
    ASSERT_TRUE(load_spec(path, &spec, &err)) << err;
    if (spec.is_trace()) continue;
    z3::expr inv(c);
    ASSERT_TRUE(parse_spec(c, spec, voc, &inv, &err)) << err;
    CompiledFormula compiled;
    ASSERT_TRUE(CompiledFormula::compile(inv, &compiled, &err)) << spec.name << ": " << err;
    for (int round = 0; round < 300; round++) {
      ConcreteValues v;
      int nvmas = pick(1, 6);
      v.ints = {{"count", pick(0, 9)}, {"lock_round_trips", pick(0, 3)}, {"finalized", pick(0, 1)},
                {"appends", pick(0, 4)}, {"removals", pick(0, 4)}};
      for (const char* name : {"vmas", "vm_file", "f_mapping", "added", "removed", "append_seq", "remove_seq"}) {
        ConcreteArray& a = v.arrays[name];
        a.dflt = name == std::string("vmas") ? -1 : 0;
        for (int i = 0; i < (name == std::string("vmas") ? BATCH_SLOTS : nvmas); i++)
          a.at[i] = name == std::string("vmas") ? pick(-1, nvmas) : pick(0, 2);
      }
      z3::expr_vector values(c);
      for (const StateField& f : state_fields()) {
        if (f.sort != FieldSort::IntArray) {
          long long x = v.ints.at(f.name);
          values.push_back(f.sort == FieldSort::Bool ? c.bool_val(x != 0) : c.int_val((int64_t)x));
          continue;
        }
        const ConcreteArray& a = v.arrays.at(f.name);
        z3::expr term = z3::const_array(c.int_sort(), c.int_val((int64_t)a.dflt));
        for (const auto& kv : a.at) term = z3::store(term, (int)kv.first, (int)kv.second);
        values.push_back(term);
      }
      z3::expr_vector names(c);
      for (const StateField& f : state_fields()) names.push_back(voc.state.*f.member);
      solver.push();
      solver.add(!inv.substitute(names, values));
      bool z3_holds = solver.check() == z3::unsat;
      solver.pop();
      bool holds = false;
      ASSERT_TRUE(compiled.evaluate(v, &holds));
      EXPECT_EQ(holds, z3_holds) << spec.name << " round " << round;
      compared++;
      held += holds;
    }
  }
  EXPECT_GE(compared, 1500);
  EXPECT_GT(held, compared / 10);  // both outcomes well represented
  EXPECT_LT(held, compared * 9 / 10);
}
