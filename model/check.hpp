// Model checks that fail the current interleaving with a named kind.
#pragma once
#include <cstdarg>
#include "model/rl_env.hpp"
#include "model/trace_names.hpp"

// The message reads "KIND: detail"; the driver takes the kind from it.
inline void vm_fail(const char* kind, rl::debug_info_param info, const char* fmt, ...) {
  char buf[320];
  int n = std::snprintf(buf, sizeof buf, "%s: ", kind);
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf + n, sizeof buf - n, fmt, ap);
  va_end(ap);
  rl::ctx().fail_test(buf, rl::test_result_user_assert_failed, info);
}

#define VM_CHECK(cond, kind, ...) \
  do { if (!(cond)) vm_fail(kind, RL_INFO, __VA_ARGS__); } while (0)

// Whether the model writes rows of its own into Relacy's history (model/trace_names.hpp).
inline bool model_rows_wanted() { return g_trace_wanted && rl::ctx().collecting_history(); }

// A row of the model's own in Relacy's history at `info` (a trace row, not a scheduling point):
// nothing unless Relacy is collecting the history for a trace.
inline void history_row_v(rl::debug_info_param info, const char* fmt, va_list ap) {
  if (!model_rows_wanted()) return;
  char text[200];
  std::vsnprintf(text, sizeof text, fmt, ap);
  rl::ctx().exec_log_msg(info, text);
}
// The same, printf-style.
inline void model_row(rl::debug_info_param info, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  history_row_v(info, fmt, ap);
  va_end(ap);
}
