// The kernel checker runs code from the user's tree and patches: C that it compiles and runs
// natively. The extractor refuses preprocessor directives in the code it takes and the shim
// poisons the names through which code reaches the system (model/kshim/); this is the last
// wall: the scenarios run in a child process under a seccomp filter (libseccomp) that allows
// memory, time, signals to itself and writes to the outputs it already holds, and nothing else
// (no open, exec, fork, socket, kill of others). A forbidden call stops the child; the checker
// names the call.
#pragma once
#include <string>
#include <vector>

// In the child, before any of the tree's code runs: install the filter. Writes are allowed to
// stdout, stderr and the fds in `outputs`, reads to `input` (-1: none), where the parent hands
// out the next scenario. False with why if the kernel refuses the filter.
bool enter_kernel_sandbox(const std::vector<int>& outputs, int report_fd, int input, std::string* why);

// The exit status of a child that made a forbidden call, after it wrote "forbidden NR" on its
// report fd.
constexpr int kSandboxForbiddenExit = 121;

// "execve (59)": a system call's name, for the message naming what the code tried.
std::string syscall_name(int nr);

// The checker's gcov counters (a checker built to count lines registers its kernel units'
// counters in a section of its own, not with libgcov's exit handler, which would open files):
// each unit's .gcda bytes, by file name, so that the child can hand them over on its pipe.
struct GcdaFile {
  std::string name, bytes;
};
std::vector<GcdaFile> kernel_gcda_files();
