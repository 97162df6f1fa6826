#include "verify/kernel/kernel_sandbox.hpp"

#include <linux/audit.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>
#include <cstring>

extern "C" {
#include <gcov.h>
// The counters of the units compiled with -fprofile-info-section=gcov_info (the tree's code in a
// checker that counts lines); none elsewhere.
extern const struct gcov_info* const __start_gcov_info[] __attribute__((weak));
extern const struct gcov_info* const __stop_gcov_info[] __attribute__((weak));
void __gcov_info_to_gcda(const struct gcov_info*, void (*)(const char*, void*), void (*)(const void*, unsigned, void*),
                         void* (*)(unsigned, void*), void*) __attribute__((weak));
}

namespace {

int g_report_fd = -1;

// SIGSYS from the filter: say which call, then stop. Only async-signal-safe calls.
void on_forbidden(int, siginfo_t* info, void*) {
  char line[48] = "forbidden ";
  int nr = info->si_syscall, n = (int)std::strlen(line);
  char digits[16];
  int d = 0;
  do digits[d++] = (char)('0' + nr % 10); while ((nr /= 10) > 0 && d < 15);
  while (d > 0) line[n++] = digits[--d];
  line[n++] = '\n';
  if (write(g_report_fd, line, (size_t)n) < 0) {}
  _exit(kSandboxForbiddenExit);
}

}  // namespace

// A sanitizer's runtime opens its report and log files (and /proc/self/maps) when it has
// something to say: under the filter that would stop the child instead of reporting. A
// sanitized build (CI's, never a user's) runs the child unfiltered.
#if defined(__SANITIZE_ADDRESS__)
#define KSHIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define KSHIM_SANITIZED 1
#endif
#endif

bool enter_kernel_sandbox(const std::vector<int>& outputs, int report_fd, int input, std::string* why) {
#ifdef KSHIM_SANITIZED
  (void)outputs, (void)report_fd, (void)input, (void)why;
  return true;
#endif
  g_report_fd = report_fd;
  struct sigaction sa = {};
  sa.sa_sigaction = on_forbidden;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &sa, nullptr);
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_TRAP);
  if (!f) {
    *why = "libseccomp could not create a filter";
    return false;
  }
  auto allow = [&](int nr) { return seccomp_rule_add(f, SCMP_ACT_ALLOW, nr, 0) == 0; };
  bool ok = true;
  // Memory (never executable: the code to run is already mapped), time, the scheduler, the
  // process's own signals and exit. No read but of the parent's pipe (below), no close: a search
  // reads nothing, and a descriptor the caller left open stays out of reach.
  for (int nr : {SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(futex),
                 SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday), SCMP_SYS(nanosleep),
                 SCMP_SYS(clock_nanosleep), SCMP_SYS(sched_yield), SCMP_SYS(getpid), SCMP_SYS(gettid),
                 SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigaction), SCMP_SYS(sigaltstack),
                 SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(getrandom)})
    ok = ok && allow(nr);
  ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) == 0;
  ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) == 0;
  // abort() and raise() signal the calling thread of this process only.
  ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid())) == 0;
  // Writes to the outputs already open; fstat and isatty on them (stdio asks).
  std::vector<int> fds = outputs;
  fds.insert(fds.end(), {1, 2, report_fd});
  for (int fd : fds) {
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd)) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(writev), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd)) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(fstat), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd)) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 2, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd),
                                SCMP_A3(SCMP_CMP_EQ, AT_EMPTY_PATH)) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd),
                                SCMP_A1(SCMP_CMP_EQ, TCGETS)) == 0;
  }
  // The parent's pipe of scenario numbers: what code under check could read there is only those.
  if (input >= 0)
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(read), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)input)) == 0;
  // The filter cannot be undone; no new privileges (libseccomp's default) keeps it so.
  ok = ok && seccomp_load(f) == 0;
  seccomp_release(f);
  if (!ok) *why = "the kernel refused the checker's syscall filter";
  return ok;
}

std::string syscall_name(int nr) {
  char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  std::string s = (name ? std::string(name) : "system call") + " (" + std::to_string(nr) + ")";
  free(name);
  return s;
}

std::vector<GcdaFile> kernel_gcda_files() {
  std::vector<GcdaFile> files;
  if (!__gcov_info_to_gcda || !__start_gcov_info) return files;
  for (const gcov_info* const* p = __start_gcov_info; p != __stop_gcov_info; ++p) {
    files.emplace_back();
    __gcov_info_to_gcda(
        *p, [](const char* name, void* arg) { static_cast<std::vector<GcdaFile>*>(arg)->back().name = name ? name : ""; },
        [](const void* data, unsigned n, void* arg) {
          static_cast<std::vector<GcdaFile>*>(arg)->back().bytes.append(static_cast<const char*>(data), n);
        },
        [](unsigned n, void*) -> void* { return malloc(n); }, &files);
  }
  return files;
}
