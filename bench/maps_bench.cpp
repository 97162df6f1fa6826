// maps_bench [VMAS] [RUNS]: VMAs per second of `vmaverify maps` (parse_maps + analyze, i.e. both
// plain::teardown runs) over one synthetic layout in /proc/PID/maps format, default one million
// VMAs and 5 runs; prints every run and the median (VMAs per CPU second).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>
#include "verify/maps/maps.hpp"

// Shaped like a real process: libraries of five file segments and an anonymous bss, a few
// one-VMA files (locale data) between them, and a gap beyond PMD_SIZE every 16 libraries so
// that free_pgtables gathers several groups.
static std::string synthetic_maps(long vmas) {
  std::string s;
  s.reserve(vmas * 110);
  long n = 0;
  unsigned long addr = 0x7f0000000000UL, inode = 1000;
  // One VMA of `pages` pages at addr; inode 0 is anonymous.
  auto emit = [&](const char* perms, unsigned long offset, unsigned long ino, const char* path, int pages) {
    if (n == vmas) return;
    char line[256];
    unsigned long end = addr + pages * 0x1000UL;
    if (ino)
      s.append(line, std::snprintf(line, sizeof line, "%lx-%lx %s %08lx fe:00 %lu                     %s\n", addr,
                                   end, perms, offset, ino, path));
    else
      s.append(line, std::snprintf(line, sizeof line, "%lx-%lx %s 00000000 00:00 0 \n", addr, end, perms));
    addr = end;
    n++;
  };
  const char* perms[] = {"r--p", "r-xp", "r--p", "r--p", "rw-p"};
  char path[96];
  for (long lib = 0; n < vmas; lib++) {
    if (lib % 16 == 0) addr += 64UL << 20;
    std::snprintf(path, sizeof path, "/usr/lib/x86_64-linux-gnu/libsynthetic%ld.so.6", lib);
    inode++;
    for (int seg = 0; seg < 5; seg++) emit(perms[seg], seg * 0x2000UL, inode, path, 2);
    emit("rw-p", 0, 0, "", 1);
    if (lib % 4 == 0) emit("r--p", 0, 500000000 + lib, "/usr/lib/locale/C.utf8/LC_NUMERIC", 1);
  }
  return s;
}

int main(int argc, char** argv) {
  const long vmas = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  if (vmas <= 0 || runs <= 0) {
    std::fprintf(stderr, "usage: maps_bench [VMAS] [RUNS]\n");
    return 2;
  }
  const std::string text = synthetic_maps(vmas);
  std::printf("synthetic layout: %ld VMAs, %.1f MB of maps text\n", vmas, text.size() / 1e6);
  // Rates use this process's CPU time (steady under a busy machine); wall time is shown too.
  std::vector<double> rates;
  auto cpu = [] { return (double)std::clock() / CLOCKS_PER_SEC; };
  for (int i = 0; i < runs; i++) {
    const auto w0 = std::chrono::steady_clock::now();
    const double t0 = cpu();
    Layout layout;
    std::string err;
    if (!parse_maps(text, "synthetic", &layout, &err)) {
      std::fprintf(stderr, "maps_bench: %s\n", err.c_str());
      return 2;
    }
    const double t1 = cpu();
    MapsReport r;
    analyze(layout, &r);
    const double t2 = cpu();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    rates.push_back(r.vmas / (t2 - t0));
    std::printf("run %d: %.0f VMAs/s (CPU: parse %.3f s, both teardowns %.3f s; wall %.3f s); "
                "locks unbatched %ld, batched %ld\n",
                i + 1, rates.back(), t1 - t0, t2 - t1, wall, r.unbatched.write_locks, r.batched.write_locks);
  }
  std::sort(rates.begin(), rates.end());
  std::printf("median: %.0f VMAs/s over %d runs\n", rates[rates.size() / 2], runs);
  return 0;
}
