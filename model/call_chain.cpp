#include "model/call_chain.hpp"

#include "model/rl_env.hpp"

namespace call_chain {

namespace {
changed_f g_changed = nullptr;

struct Stack {
  const char* frame[kMaxDepth];
  int depth = 0;  // may exceed kMaxDepth: the frames beyond it are counted, not kept
};
Stack stacks[kMaxTasks];

int current_task() {
  const int t = (int)rl::thread_index();
  return t >= 0 && t < kMaxTasks ? t : -1;
}

void changed(int t) {
  const Stack& s = stacks[t];
  if (g_changed) g_changed(t, s.frame, s.depth < kMaxDepth ? s.depth : kMaxDepth);
}

// The kernel functions named by the generated code: filled before main, read while recording.
constexpr int kMaxNamed = 1024;
FunctionName named[kMaxNamed];
int named_count = 0;
}  // namespace

bool name_functions(const FunctionName* table, int count) {
  for (int i = 0; i < count && named_count < kMaxNamed; i++) named[named_count++] = table[i];
  return true;
}

static const char* name_of(const void* function) __attribute__((no_instrument_function));
static const char* name_of(const void* function) {
  for (int i = 0; i < named_count; i++)
    if (named[i].function == function) return named[i].name;
  return nullptr;  // the shim's or the model's code: not a frame of the kernel's
}

static void enter(const char* function) {
  const int t = current_task();
  if (t < 0) return;
  Stack& s = stacks[t];
  if (s.depth < kMaxDepth) s.frame[s.depth] = function;
  s.depth++;
  changed(t);
}

static void leave() {
  const int t = current_task();
  if (t < 0 || stacks[t].depth == 0) return;
  stacks[t].depth--;
  changed(t);
}

void start(changed_f on_change) {
  for (Stack& s : stacks) s.depth = 0;
  g_changed = on_change;
  g_enter = &enter;
  g_leave = &leave;
}

void stop() {
  g_enter = nullptr;
  g_leave = nullptr;
  g_changed = nullptr;
}

}  // namespace call_chain

// GCC's -finstrument-functions hooks, called on entry to and exit from every function of the
// tree's code (and only that code: nothing else is compiled with the flag).
extern "C" void __cyg_profile_func_enter(void* function, void* call_site) __attribute__((no_instrument_function));
extern "C" void __cyg_profile_func_exit(void* function, void* call_site) __attribute__((no_instrument_function));

extern "C" void __cyg_profile_func_enter(void* function, void*) {
  if (!call_chain::g_enter) return;
  if (const char* name = call_chain::name_of(function)) call_chain::g_enter(name);
}

extern "C" void __cyg_profile_func_exit(void* function, void*) {
  if (!call_chain::g_leave) return;
  if (call_chain::name_of(function)) call_chain::g_leave();
}
