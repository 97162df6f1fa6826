// Run-time options of the sanitizer build (VMAVERIFY_SANITIZE), built into every binary so
// that the test suite, the tool and the fuzzers need no environment:
// - Relacy replaces the global operator new with malloc (context.hpp), so memory from new is
//   released by free() and the other way round: not a bug of ours, not reported.
// - Relacy's fiber stacks and Z3's caches live until exit: leaks of theirs are suppressed by
//   the frames they are allocated in, our own are still reported.
// - allocator_may_return_null: a failed allocation reaches operator_new.cpp, which makes it
//   the clean exit 2 that the release build gives, instead of ASan's abort.
// - exitcode=86: a sanitizer report is never mistaken for one of the contract's statuses
//   (1 would read as a counterexample).
// - print_suppressions=0: the suppressed Relacy/Z3 leaks are not listed at every exit.
// ASan also warns once per run that Relacy's fibers (swapcontext) switch stacks; the preset
// and .ci/sanitize send all sanitizer output to log files (log_path) and fail on any error in them.
extern "C" const char* __asan_default_options() {
  return "alloc_dealloc_mismatch=0:allocator_may_return_null=1:detect_stack_use_after_return=0:exitcode=86:"
         "print_suppressions=0";
}
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1:exitcode=86"; }
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libz3.so\n"
         "leak:rl::\n"
         "leak:create_fiber\n";
}
