#include "verify/kernel/kernel_pool.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

namespace {

void write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += (size_t)n;
  }
}

std::string hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string h;
  for (unsigned char c : bytes) h += digits[c >> 4], h += digits[c & 15];
  return h;
}
// The child's bytes back; false on anything but pairs of hex digits (the child runs untrusted
// code: what it writes on the pipe is input).
bool unhex(const std::string& h, std::string* bytes) {
  auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  if (h.size() % 2) return false;
  for (size_t i = 0; i < h.size(); i += 2) {
    const int hi = digit(h[i]), lo = digit(h[i + 1]);
    if (hi < 0 || lo < 0) return false;
    *bytes += (char)(hi * 16 + lo);
  }
  return true;
}

// The next task's number from the parent, or nullopt when it closed the pipe (no task left).
std::optional<size_t> read_task(int fd) {
  std::string line;
  char c;
  for (ssize_t n; (n = read(fd, &c, 1)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (c == '\n') return (size_t)std::strtoull(line.c_str(), nullptr, 10);
    line += c;
  }
  return std::nullopt;
}

// In the child: the filter, then tasks until the parent has none left; then the counters.
[[noreturn]] void child_main(const ContainedTasks& t, int tasks_fd, int out_fd) {
  signal(SIGPIPE, SIG_DFL);
  std::string why;
  if (!enter_kernel_sandbox({}, out_fd, tasks_fd, &why)) {
    write_all(out_fd, "refused " + why + "\n");
    _exit(1);
  }
  while (const std::optional<size_t> i = read_task(tasks_fd)) write_all(out_fd, "result " + t.run(*i) + "\n");
  if (t.count_lines)
    for (const GcdaFile& f : kernel_gcda_files()) write_all(out_fd, "gcda " + hex(f.name) + " " + hex(f.bytes) + "\n");
  write_all(out_fd, "done\n");
  std::fflush(nullptr);
  _exit(0);
}

struct Child {
  pid_t pid = -1;
  int tasks = -1, out = -1;  // the parent's ends of the two pipes
  std::string text;          // read, not yet a whole line
  long task = -1;            // the task it runs, -1: none
  bool done = false;
  int forbidden = -1;
  std::string refused;
  std::vector<GcdaFile> counters;
};

// Why a child that ended its output pipe stopped, "" if it ended as asked.
std::string why_stopped(const Child& c, int status) {
  if (c.done && c.task < 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  if (c.forbidden >= 0)
    return "made the system call " + syscall_name(c.forbidden) + ", which the checker forbids (code from a tree or a "
           "patch may compute, not reach the system); stopped";
  if (!c.refused.empty()) return "could not be contained: " + c.refused;
  if (WIFSIGNALED(status))
    return std::string("crashed: signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "ended with status " + std::to_string(WEXITSTATUS(status)) + " before every scenario ran";
}

// One line from a child. Malformed lines are ignored: without its "done" the child is reported
// as stopped.
void take_line(Child* c, const std::string& line, std::map<size_t, std::string>* results) {
  if (line == "done") {
    c->done = true;
  } else if (line.rfind("forbidden ", 0) == 0) {
    c->forbidden = std::atoi(line.c_str() + 10);
  } else if (line.rfind("refused ", 0) == 0) {
    c->refused = line.substr(8);
  } else if (line.rfind("result ", 0) == 0 && c->task >= 0) {
    (*results)[(size_t)c->task] = line.substr(7);
    c->task = -1;
  } else if (line.rfind("gcda ", 0) == 0) {
    const size_t space = line.find(' ', 5);
    GcdaFile f;
    if (space != std::string::npos && unhex(line.substr(5, space - 5), &f.name) && unhex(line.substr(space + 1), &f.bytes))
      c->counters.push_back(f);
  }
}

}  // namespace

std::string run_contained_tasks(const ContainedTasks& t, std::vector<std::vector<GcdaFile>>* counters,
                                const std::function<void(size_t, const std::string&)>& on_result,
                                const std::function<void(size_t)>& on_arrival) {
  // A child that died leaves its task pipe without a reader: writing there must fail, not kill us.
  struct sigaction ignore = {}, before = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &before);
  std::vector<Child> children(std::max<size_t>(1, std::min<size_t>(t.count, (size_t)std::max(1, t.jobs))));
  std::string stopped;
  for (Child& c : children) {
    int tasks[2], out[2];
    if (pipe(tasks) != 0 || pipe(out) != 0) {
      stopped = std::string("could not start: ") + std::strerror(errno);
      break;
    }
    std::fflush(nullptr);
    c.pid = fork();
    if (c.pid < 0) {
      stopped = std::string("could not start: ") + std::strerror(errno);
      close(tasks[0]), close(tasks[1]), close(out[0]), close(out[1]);
      break;
    }
    if (c.pid == 0) {
      // Only this child's own ends: the others' stay with the parent.
      for (Child& other : children)
        if (&other != &c && other.pid > 0) close(other.tasks), close(other.out);
      close(tasks[1]), close(out[0]);
      child_main(t, tasks[0], out[1]);
    }
    close(tasks[0]), close(out[1]);
    c.tasks = tasks[1], c.out = out[0];
  }
  size_t next = 0, delivered = 0, arrived = 0;
  std::map<size_t, std::string> results;  // in, not yet handed over
  // A child without a task gets the next one, or its pipe closed when there is none.
  auto hand_out = [&](Child& c) {
    if (c.tasks < 0 || c.task >= 0) return;
    if (next < t.count && stopped.empty()) {
      c.task = (long)next++;
      write_all(c.tasks, std::to_string(c.task) + "\n");
    } else {
      close(c.tasks);
      c.tasks = -1;
    }
  };
  for (Child& c : children)
    if (c.pid > 0) hand_out(c);
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Child*> of;
    for (Child& c : children)
      if (c.out >= 0) fds.push_back({c.out, POLLIN, 0}), of.push_back(&c);
    if (fds.empty()) break;
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      stopped = std::string("could not wait for the children: ") + std::strerror(errno);
      break;
    }
    for (size_t k = 0; k < fds.size(); k++) {
      if (!fds[k].revents) continue;
      Child& c = *of[k];
      char buf[65536];
      const ssize_t n = read(c.out, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        c.text.append(buf, (size_t)n);
        for (size_t nl; (nl = c.text.find('\n')) != std::string::npos; c.text.erase(0, nl + 1)) {
          const size_t before_count = results.size();
          take_line(&c, c.text.substr(0, nl), &results);
          if (results.size() > before_count && on_arrival) on_arrival(++arrived);
        }
        hand_out(c);
        while (results.count(delivered)) {
          on_result(delivered, results[delivered]);
          results.erase(delivered++);
        }
        continue;
      }
      // The child's end: it finished, or something stopped it.
      close(c.out);
      c.out = -1;
      if (c.tasks >= 0) close(c.tasks), c.tasks = -1;
      int status = 0;
      while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {}
      c.pid = -1;
      const std::string why = why_stopped(c, status);
      if (!why.empty() && stopped.empty()) {
        stopped = why;
        for (Child& other : children)
          if (other.pid > 0) kill(other.pid, SIGKILL);
      }
      if (why.empty() && counters) counters->push_back(c.counters);
    }
  }
  for (Child& c : children)
    if (c.pid > 0) {
      if (c.tasks >= 0) close(c.tasks);
      if (c.out >= 0) close(c.out);
      kill(c.pid, SIGKILL);
      while (waitpid(c.pid, nullptr, 0) < 0 && errno == EINTR) {}
    }
  // After a stop, the results that are in, in order, past the gap the stopped task left.
  for (const auto& [i, line] : results) on_result(i, line);
  sigaction(SIGPIPE, &before, nullptr);
  return stopped;
}
