// Each task's kernel call chain, for the counterexample trace's `chain` field (a row's
// `exit_mmap → free_pgtables → free_pgd_range → free_pmd_range`): every model function that
// stands for a kernel function opens a KERNEL_FRAME(), named by the function itself; in kernel
// mode the tree's own functions open theirs through the compiler (below).
// Bookkeeping of the trace alone, private to each task and never read by the model: it decides
// nothing a run does, and costs one test of a pointer unless a trace is being made (in kernel
// mode, the tree's functions also call the two hooks below on every entry and exit).
#pragma once

namespace call_chain {

constexpr int kMaxDepth = 24;  // deeper frames are not kept (a chain shows its outer 24)
constexpr int kMaxTasks = 32;

// Called with a task's frames, outermost first, after each frame opens or closes.
typedef void (*changed_f)(int task, const char* const* frames, int depth);
// The driver starts recording only while it replays the run a trace is made of (every task's
// frames forgotten first: a failing run leaves its tasks' frames open), and stops it after.
void start(changed_f changed);
void stop();

// Set while recording, null otherwise: a frame then costs one test. Inline variables, so that
// code built without this file's .cpp (the plain teardown of `vmaverify maps`) needs nothing.
inline void (*g_enter)(const char* function) = nullptr;
inline void (*g_leave)() = nullptr;

// Kernel mode: the tree's code is compiled with -finstrument-functions (verify/kernel/), whose
// hooks open and close a frame for each of its functions that the extraction named here (a
// table the generated code registers before main: each function's address and name).
struct FunctionName {
  const void* function;
  const char* name;
};
bool name_functions(const FunctionName* table, int count);

struct Frame {
  explicit Frame(const char* function) : kept(g_enter != nullptr) {
    if (kept) g_enter(function);
  }
  ~Frame() {
    if (kept && g_leave) g_leave();
  }
  const bool kept;
};

}  // namespace call_chain

#ifdef VMAVERIFY_COVERAGE_BUILD
// The coverage build measures the model's own branches: a frame's destructor would add an
// exception edge to every framed function, which gcov reports in the header copies that never ran.
#define KERNEL_FRAME() ((void)0)
#define KERNEL_FRAME_AS(name) ((void)0)
#else
// At the top of a model function that stands for the kernel function of the same name.
#define KERNEL_FRAME() const call_chain::Frame kernel_frame_(__func__)
// At the top of a model function that stands for a kernel function of another name (one that
// models a part of it, or a path through it).
#define KERNEL_FRAME_AS(name) const call_chain::Frame kernel_frame_(name)
#endif
