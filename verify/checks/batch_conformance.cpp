#include "verify/checks/batch_conformance.hpp"

#include <z3++.h>
#include <cstring>
#include <vector>
#include "model/mutants.hpp"
#include "proofs/batch_system.hpp"
#include "proofs/concrete_eval.hpp"
#include "model/vma_batch.hpp"

// The kernel objects the batch functions need, recording what they are made to do. The ghost
// fields follow the definitions of model/mm.cpp's unlink_file_vma_batch_event (and of the
// vocabulary, proofs/README.md): appending a VMA counts it in `added` and numbers it,
// __remove_shared_vm_struct counts and numbers a removal, final sets `finalized`.
namespace conformance {

struct address_space {
  int id;
};
struct file {
  int id;
  address_space* f_mapping;
};
struct vm_area_struct {
  int id;
  file* vm_file;  // NULL: anonymous
};

BatchSnapshot* g_state;               // the state the calls are recorded in
std::vector<BatchSnapshot>* g_trail;  // when set: the state at each event, as model/mm.cpp records it

void read_batch(const unlink_vma_file_batch<vm_area_struct>& vb, BatchSnapshot* s);

void i_mmap_lock_write(address_space*) { g_state->lock_round_trips++; }
void i_mmap_unlock_write(address_space*) {}
void i_mmap_lock_read(address_space*) {}
void i_mmap_unlock_read(address_space*) {}
void __remove_shared_vm_struct(vm_area_struct* vma, address_space*) {
  g_state->removed[vma->id]++;
  g_state->remove_seq[vma->id] = ++g_state->removals;
}
void VM_WARN_ON_ONCE_mapping(bool, vm_area_struct*) {}
void unlink_file_vma_batch_event(unlink_vma_file_batch<vm_area_struct>* vb, batch_event ev) {
  // count > ARRAY_SIZE only under the no-flush-when-full mutant, which keeps the overflow in
  // count alone (model/vma_batch.hpp): there is no slot to read the appended VMA from.
  if (ev == BATCH_ADD && vb->count > 0 && vb->count <= unlink_vma_file_batch<vm_area_struct>::ARRAY_SIZE) {
    const int id = vb->vmas[vb->count - 1]->id;
    g_state->added[id]++;
    g_state->append_seq[id] = ++g_state->appends;
    g_state->finalized = false;
  }
  if (ev == BATCH_FINAL) g_state->finalized = true;
  if (g_trail && ev != BATCH_PROCESS) {
    read_batch(*vb, g_state);
    g_trail->push_back(*g_state);
  }
}

// The batch's own fields, read after a call: count and the slots below it (-1 elsewhere).
void read_batch(const unlink_vma_file_batch<vm_area_struct>& vb, BatchSnapshot* s) {
  s->count = vb.count;
  for (int i = 0; i < BATCH_SLOTS; i++) s->vmas[i] = i < vb.count && i < BATCH_SLOTS ? vb.vmas[i]->id : -1;
}

}  // namespace conformance

namespace {

using conformance::vm_area_struct;
using Batch = unlink_vma_file_batch<vm_area_struct>;

using conformance::read_batch;

// "post is what `step` gives from pre", as a formula over constants pre_*, post_* and v, to be
// evaluated on concrete states. Arrays are compared at every index a layout uses and one
// beyond (both sides are constant past the layout); vmas below the count after the step.
class StepCheck {
 public:
  StepCheck(z3::context& c, const BatchSystem& sys, bool is_add, int max_vmas) {
    BatchState pre = fresh_state(c, "pre_"), post = fresh_state(c, "post_");
    z3::expr v = c.int_const("v");
    BatchState want = is_add ? sys.add(pre, v) : sys.finalize(pre);
    z3::expr all = c.bool_val(true);
    for (const StateField& f : state_fields()) {
      const z3::expr &got = post.*f.member, &exp = want.*f.member;
      z3::expr same = c.bool_val(true);
      if (f.sort != FieldSort::IntArray) {
        same = got == exp;
      } else if (std::string(f.name) == "vmas") {
        for (int i = 0; i <= BATCH_SLOTS; i++)
          same = same && z3::implies(i < post.count, z3::select(got, i) == z3::select(exp, i));
      } else {
        for (int i = 0; i <= max_vmas; i++) same = same && z3::select(got, i) == z3::select(exp, i);
      }
      FieldCheck fc{f.name, {}};
      std::string why;
      if (!CompiledFormula::compile(same.simplify(), &fc.formula, &why)) throw std::runtime_error(why);
      fields_.push_back(fc);
      all = all && same;
    }
    std::string why;
    if (!CompiledFormula::compile(all.simplify(), &whole_, &why)) throw std::runtime_error(why);
  }

  // "" when post is what the step gives from pre, else the first field that differs.
  std::string differs(const BatchSnapshot& pre, const BatchSnapshot& post, int vma) const {
    ConcreteValues values;
    put(pre, "pre_", &values);
    put(post, "post_", &values);
    values.ints["v"] = vma;
    bool holds = false;
    if (whole_.evaluate(values, &holds) && holds) return "";  // the common case, in one evaluation
    for (const FieldCheck& f : fields_) {
      bool holds = false;
      if (!f.formula.evaluate(values, &holds) || !holds) return f.name;
    }
    return "state (no single field)";
  }

 private:
  struct FieldCheck {
    std::string name;
    CompiledFormula formula;
  };
  static void put(const BatchSnapshot& s, const std::string& p, ConcreteValues* v) {
    v->ints[p + "count"] = s.count;
    v->ints[p + "lock_round_trips"] = s.lock_round_trips;
    v->ints[p + "finalized"] = s.finalized;
    v->ints[p + "appends"] = s.appends;
    v->ints[p + "removals"] = s.removals;
    auto array = [&](const char* name, const int* a, int n, int dflt) {
      ConcreteArray& c = v->arrays[p + name];
      c.dflt = dflt;
      for (int i = 0; i < n; i++)
        if (a[i] != dflt) c.at[i] = a[i];
    };
    array("vmas", s.vmas, BATCH_SLOTS, -1);
    array("vm_file", s.vm_file, s.nvmas, 0);
    array("f_mapping", s.f_mapping, SNAPSHOT_MAX_FILES, 0);
    array("added", s.added, s.nvmas, 0);
    array("removed", s.removed, s.nvmas, 0);
    array("append_seq", s.append_seq, s.nvmas, 0);
    array("remove_seq", s.remove_seq, s.nvmas, 0);
  }
  std::vector<FieldCheck> fields_;  // to name the field that differs
  CompiledFormula whole_;           // every field at once
};

std::string layout_text(const std::vector<int>& files) {
  std::string t = "[";
  for (size_t i = 0; i < files.size(); i++) t += (i ? " " : "") + (files[i] ? std::string(1, char('A' + files[i] - 1)) : "anon");
  return t + "]";
}

struct Explorer {
  const StepCheck& add_check;
  const StepCheck& final_check;
  int max_vmas, max_files;
  ConformanceResult result;
  std::vector<int> files;  // the layout so far: file id per VMA, 0 = anonymous

  // The layout torn down from scratch: init, add each VMA (checking each add), then final.
  // Prefixes are re-run rather than copied: the C batch holds pointers into its layout.
  bool run_layout() {
    conformance::address_space mappings[SNAPSHOT_MAX_FILES];
    conformance::file filev[SNAPSHOT_MAX_FILES];
    for (int f = 1; f <= max_files; f++) {
      mappings[f] = {f};
      filev[f] = {f, &mappings[f]};
    }
    std::vector<vm_area_struct> vmas(files.size());
    BatchSnapshot s;
    std::memset(static_cast<void*>(&s), 0, sizeof s);
    s.nvmas = (int)files.size();
    for (size_t i = 0; i < files.size(); i++) {
      vmas[i] = {(int)i, files[i] ? &filev[files[i]] : nullptr};
      s.vm_file[i] = files[i];
      if (files[i]) s.f_mapping[files[i]] = files[i];
    }
    conformance::g_state = &s;
    Batch vb;
    unlink_file_vma_batch_init(&vb);
    read_batch(vb, &s);
    for (size_t i = 0; i < files.size(); i++) {
      BatchSnapshot before = s;
      unlink_file_vma_batch_add(&vb, &vmas[i]);
      read_batch(vb, &s);
      // Only the last add is new: the earlier ones were checked with the shorter layouts.
      if (i + 1 == files.size() && !agree(add_check, before, s, (int)i, "add(vma " + std::to_string(i) + ")"))
        return false;
    }
    BatchSnapshot before = s;
    unlink_file_vma_batch_final(&vb);
    read_batch(vb, &s);
    return agree(final_check, before, s, -1, "final");
  }

  bool agree(const StepCheck& check, const BatchSnapshot& pre, const BatchSnapshot& post, int vma, const std::string& call) {
    result.steps++;
    std::string field = check.differs(pre, post, vma);
    if (field.empty()) return true;
    result.message = "layout " + layout_text(files) + ": after the C " + call + " the batch's " + field +
                     " is not what the Z3 system's step gives";
    return false;
  }

  // Depth first over layouts; a new file is the next unused letter.
  bool extend(int files_used) {
    result.layouts++;
    if (!run_layout()) return false;
    if ((int)files.size() == max_vmas) return true;
    for (int f = 0; f <= std::min(files_used + 1, max_files); f++) {
      files.push_back(f);
      bool ok = extend(std::max(files_used, f));
      files.pop_back();
      if (!ok) return false;
    }
    return true;
  }
};

}  // namespace

std::vector<BatchSnapshot> batch_trail(const BatchSnapshot& layout) {
  const int n = std::min(std::max(layout.nvmas, 0), SNAPSHOT_MAX_VMAS);
  conformance::address_space mappings[SNAPSHOT_MAX_FILES];
  conformance::file files[SNAPSHOT_MAX_FILES];
  for (int f = 0; f < SNAPSHOT_MAX_FILES; f++) {
    mappings[f] = {layout.f_mapping[f]};
    files[f] = {f, &mappings[f]};
  }
  std::vector<vm_area_struct> vmas(n);
  BatchSnapshot s;
  std::memset(static_cast<void*>(&s), 0, sizeof s);  // bytewise comparable, like model/mm.cpp's
  s.nvmas = n;
  std::memcpy(s.vm_file, layout.vm_file, sizeof s.vm_file);
  std::memcpy(s.f_mapping, layout.f_mapping, sizeof s.f_mapping);
  for (int i = 0; i < n; i++) {
    const int f = layout.vm_file[i];
    vmas[i] = {i, f > 0 && f < SNAPSHOT_MAX_FILES ? &files[f] : nullptr};
  }
  std::vector<BatchSnapshot> trail;
  conformance::g_state = &s;
  conformance::g_trail = &trail;
  Batch vb;
  unlink_file_vma_batch_init(&vb);
  for (vm_area_struct& v : vmas) unlink_file_vma_batch_add(&vb, &v);
  unlink_file_vma_batch_final(&vb);
  conformance::g_trail = nullptr;
  return trail;
}

ConformanceResult check_batch_conformance(int max_vmas, int max_files, const std::string& mutant) {
  ConformanceResult r;
  const MutantInfo* m = find_mutant(mutant);
  if (mutant != "none" && !m) {
    r.message = "unknown mutant '" + mutant + "'";
    return r;
  }
  if (max_vmas > SNAPSHOT_MAX_VMAS - 1 || max_files > SNAPSHOT_MAX_FILES - 1) {
    r.message = "layouts larger than a snapshot holds";
    return r;
  }
  try {
    z3::context c;
    BatchSystem sys(c, BatchMutant::none, max_vmas + 1);
    StepCheck add_check(c, sys, true, max_vmas), final_check(c, sys, false, max_vmas);
    Explorer e{add_check, final_check, max_vmas, max_files, {}, {}};
    g_active_mutant = m ? m->id : Mutant::none;
    e.result.conforms = e.extend(0);
    g_active_mutant = Mutant::none;
    r = e.result;
  } catch (const std::exception& x) {
    g_active_mutant = Mutant::none;
    r.message = std::string("cannot build the step formulas: ") + x.what();
  }
  return r;
}

// The conformance check's place in `all`: its own check, so that "proved" is known to be about
// the batch code the explorations run.
#include <chrono>
#include "verify/checks/all.hpp"

static Outcome conformance_outcome() {
  Outcome o;
  o.r.scenario = "batch_conformance";
  o.r.search = "layouts:" + std::to_string(kConformanceVmas) + "x" + std::to_string(kConformanceFiles);
  o.expected = "verified";
  auto start = std::chrono::steady_clock::now();
  ConformanceResult c = check_batch_conformance(kConformanceVmas, kConformanceFiles);
  o.r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.r.iterations = (uint64_t)c.steps;
  o.r.stats["layouts"] = c.layouts;
  o.r.result = c.conforms ? "verified" : "counterexample";
  o.r.kind = c.conforms ? "" : "conformance";
  o.r.message = c.conforms ? "model/vma_batch.hpp agrees with the Z3 system's add and final on every layout"
                           : c.message;
  o.as_expected = c.conforms;
  return o;
}

static std::vector<Check> conformance_checks(bool) {
  Outcome on_crash;
  on_crash.r.scenario = "batch_conformance";
  on_crash.expected = "verified";
  return {{on_crash, [](const OutcomeSink& sink) { sink(conformance_outcome()); }}};
}

static CheckGroupRegistrar conformance_group({"conformance", &conformance_checks});
