#include "verify/search/work_stealing.hpp"

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>

namespace exploration {
namespace work_stealing {

void (*reset_hook)() = nullptr;

namespace {

// In memory shared by every process of the pool (an anonymous shared mapping made before the
// first fork). Lock-free atomics work across processes.
constexpr size_t kClaims = 1 << 16;
constexpr size_t kSerialWorkers = 1 << 12;  // set_serial waits for the first this many workers
struct Shared {
  std::atomic<int> free_places;
  std::atomic<uint32_t> workers;  // numbered so far (fork_worker)
  std::atomic<uint32_t> unforked;  // of those, the forks that failed
  std::atomic<uint8_t> searched[kSerialWorkers];  // by worker number: its search has ended
  std::atomic<uint64_t> iterations;
  std::atomic<int> stop;
  // The claimed choices (claim): open addressing, keys (a, b), (0, 0) free; one lock for all
  // (claims are rare: one a new choice at a shared node).
  std::atomic_flag lock;
  size_t claimed;
  uint64_t keys[kClaims][2];
};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<uint64_t>::is_always_lock_free,
              "shared counters must be lock-free to work across processes");

Shared* g_shared = nullptr;
int g_pipe[2] = {-1, -1};
bool g_worker = false;
uint32_t g_id = 0;                  // 0 for the first process, else the worker's number
uint64_t g_own_iterations = 0;      // begun by this process since it started (or was forked)
uint64_t g_split_delay = 0;         // set_split_delay
bool g_serial = false;              // set_serial
// The workers this process forked and has not reaped. Fixed storage: a fork happens inside a
// search, where Relacy's global operator new hands out its own heap, checked for leaks at the end
// of every iteration.
constexpr size_t kMaxChildren = 1024;
pid_t g_children[kMaxChildren];
size_t g_nchildren = 0;

// A blob travels in chunks no longer than PIPE_BUF, each written whole (POSIX: such writes to
// a pipe are atomic), so that the chunks of workers writing at once do not interleave.
struct ChunkHeader {
  uint32_t worker;
  uint32_t length;
  uint32_t last;
};
constexpr size_t kChunkData = PIPE_BUF - sizeof(ChunkHeader);

bool write_all(int fd, const char* p, size_t n) {
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= (size_t)w;
  }
  return true;
}

void wait_children() {
  for (size_t i = 0; i < g_nchildren; i++) {
    int status;
    while (waitpid(g_children[i], &status, 0) < 0 && errno == EINTR) {
    }
  }
  g_nchildren = 0;
}

// Reaps the workers that have ended, keeping the others.
void reap_ended() {
  size_t kept = 0;
  for (size_t i = 0; i < g_nchildren; i++) {
    int status;
    if (waitpid(g_children[i], &status, WNOHANG) == 0) g_children[kept++] = g_children[i];
  }
  g_nchildren = kept;
}

}  // namespace

bool begin(unsigned jobs, std::string* err) {
  g_worker = false;
  g_id = 0;
  g_nchildren = 0;
  g_own_iterations = 0;
  if (jobs < 2) return true;
  void* m = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    *err = std::string("work-stealing: cannot map the shared counters: ") + std::strerror(errno);
    return false;
  }
  if (pipe(g_pipe) != 0) {
    *err = std::string("work-stealing: cannot make the results pipe: ") + std::strerror(errno);
    munmap(m, sizeof(Shared));
    return false;
  }
  g_shared = new (m) Shared();
  g_shared->lock.clear();
  g_shared->free_places = (int)jobs - 1;
  return true;
}

bool active() { return g_shared != nullptr; }
bool is_worker() { return g_worker; }
bool place_free() {
  return g_shared && g_own_iterations >= g_split_delay && g_shared->free_places.load(std::memory_order_relaxed) > 0;
}
void set_split_delay(uint64_t iterations) { g_split_delay = iterations; }
void set_serial(bool serial) { g_serial = serial; }

namespace {
// set_serial: the parent waits until worker `id` (process `pid`) has ended its search, or has
// exited without (a crash: end() reports it).
void wait_for_search(uint32_t id, pid_t pid) {
  if (id >= kSerialWorkers) return;
  while (!g_shared->searched[id].load()) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      for (size_t i = 0; i < g_nchildren; i++)
        if (g_children[i] == pid) g_children[i] = g_children[--g_nchildren];
      return;
    }
    usleep(50);
  }
}
}  // namespace

pid_t fork_worker() {
  if (!g_shared) return -1;
  reap_ended();
  if (g_nchildren == kMaxChildren) return -1;
  int free = g_shared->free_places.load();
  do {
    if (free <= 0) return -1;
  } while (!g_shared->free_places.compare_exchange_weak(free, free - 1));
  const pid_t parent = getpid();
  // Numbered here: in serial mode the parent waits for this number's search.
  const uint32_t id = ++g_shared->workers;
  const pid_t pid = fork();
  if (pid < 0) {
    g_shared->unforked++;
    g_shared->free_places++;
    return -1;
  }
  if (pid > 0) {
    g_children[g_nchildren++] = pid;
    if (g_serial) wait_for_search(id, pid);
    return pid;
  }
  // The worker dies with the process that forked it (a parent waits for its workers before it
  // exits, so only a parent that was killed leaves them): a stopped search leaves no process.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  g_worker = true;
  g_id = id;
  g_nchildren = 0;
  g_own_iterations = 0;
  if (g_pipe[0] >= 0) close(g_pipe[0]), g_pipe[0] = -1;
  if (reset_hook) reset_hook();
  return 0;
}

namespace {
// Looks (a, b) up, and inserts it when `insert`: whether it was there before.
bool claim_table(uint64_t a, uint64_t b, bool insert) {
  if (a == 0 && b == 0) a = 1;
  while (g_shared->lock.test_and_set(std::memory_order_acquire)) {
  }
  bool found = false;
  size_t i = (size_t)(a ^ (b >> 7)) & (kClaims - 1);
  for (;; i = (i + 1) & (kClaims - 1)) {
    uint64_t* k = g_shared->keys[i];
    if (k[0] == a && k[1] == b) {
      found = true;
      break;
    }
    if (k[0] == 0 && k[1] == 0) {
      // Half full: no more entries, so that probing stays short; a choice not recorded is
      // then explored by whoever takes it (twice at worst).
      if (insert && g_shared->claimed < kClaims / 2) k[0] = a, k[1] = b, g_shared->claimed++;
      break;
    }
  }
  g_shared->lock.clear(std::memory_order_release);
  return found;
}
}  // namespace

bool claim(uint64_t a, uint64_t b) { return !g_shared || !claim_table(a, b, true); }
bool claimed(uint64_t a, uint64_t b) { return g_shared && claim_table(a, b, false); }

uint64_t count_iteration() {
  g_own_iterations++;
  return g_shared ? ++g_shared->iterations : 0;
}
void stop_all() {
  if (g_shared) g_shared->stop = 1;
}
bool stopped() { return g_shared && g_shared->stop.load(std::memory_order_relaxed); }
uint64_t splits() { return g_shared ? g_shared->workers.load() - g_shared->unforked.load() : 0; }

void finish_worker(const std::string& blob) {
  if (g_id < kSerialWorkers) g_shared->searched[g_id] = 1;
  g_shared->free_places++;
  size_t at = 0;
  bool ok = true;
  do {
    char chunk[PIPE_BUF];
    const size_t n = std::min(kChunkData, blob.size() - at);
    const ChunkHeader h = {g_id, (uint32_t)n, at + n == blob.size()};
    std::memcpy(chunk, &h, sizeof h);
    std::memcpy(chunk + sizeof h, blob.data() + at, n);
    ok = write_all(g_pipe[1], chunk, sizeof h + n);
    at += n;
  } while (ok && at < blob.size());
  close(g_pipe[1]);
  wait_children();
  _exit(ok ? 0 : 1);
}

bool end(std::vector<std::string>* blobs, std::string* err) {
  blobs->clear();
  if (!g_shared) return true;
  g_shared->free_places++;  // this process's search is over: a worker may split in its place
  // Every process holds the write end while it may still fork or report: end of file once all
  // have finished.
  close(g_pipe[1]);
  g_pipe[1] = -1;
  std::map<uint32_t, std::string> partial;
  std::map<uint32_t, std::string> whole;
  std::string buffer;
  char in[1 << 16];
  for (;;) {
    const ssize_t r = ::read(g_pipe[0], in, sizeof in);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    buffer.append(in, (size_t)r);
    size_t at = 0;
    while (buffer.size() - at >= sizeof(ChunkHeader)) {
      ChunkHeader h;
      std::memcpy(&h, buffer.data() + at, sizeof h);
      if (buffer.size() - at - sizeof h < h.length) break;
      partial[h.worker].append(buffer, at + sizeof h, h.length);
      if (h.last) whole[h.worker] = std::move(partial[h.worker]), partial.erase(h.worker);
      at += sizeof h + h.length;
    }
    buffer.erase(0, at);
  }
  close(g_pipe[0]);
  g_pipe[0] = -1;
  wait_children();
  const uint32_t forked = g_shared->workers.load() - g_shared->unforked.load();
  munmap(g_shared, sizeof(Shared));
  g_shared = nullptr;
  for (auto& w : whole) blobs->push_back(std::move(w.second));
  if (whole.size() != forked) {
    *err = std::to_string(forked - whole.size()) + " of the search's " + std::to_string(forked) +
           " worker processes ended without reporting (killed or crashed): their subtrees are unexplored";
    return false;
  }
  return true;
}

}  // namespace work_stealing
}  // namespace exploration
