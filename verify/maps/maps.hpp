// vmaverify maps: real process layouts (/proc/PID/maps) torn down by the model's own
// free_pgtables (model/mm_plain.hpp), batched and unbatched, to count i_mmap_rwsem write-lock
// round trips the way the patch's bpftrace histogram did.
#pragma once
#include <array>
#include <map>
#include <string>
#include <vector>
#include <nlohmann/json_fwd.hpp>
#include "model/mm_plain.hpp"

// One line of /proc/PID/maps:
//   start-end perms offset major:minor inode   [pathname]
struct MapsVma {
  unsigned long start = 0, end = 0;
  std::string perms;  // "r-xp": r/w/x or '-', then 's' (shared) or 'p' (private)
  unsigned long offset = 0;
  unsigned dev_major = 0, dev_minor = 0;
  unsigned long inode = 0;
  std::string path;      // as shown, padding and " (deleted)" removed; empty when anonymous
  bool deleted = false;  // the path had the " (deleted)" suffix
  // vm_file != NULL exactly when maps shows an inode: anonymous memory, [heap], [stack], [vdso],
  // [vvar] show 0, while shmem-backed mappings ("/dev/zero (deleted)", "/SYSV...", memfd,
  // "[anon_shmem:...]") show their shmem inode and do sit in that file's i_mmap tree.
  bool file_backed() const { return inode != 0; }
  // The gate VMA is shown by maps but is not in the mm's VMA tree: free_pgtables never sees it.
  bool gate() const { return path == "[vsyscall]"; }
};

// One process's VMAs in address order.
struct Layout {
  std::vector<MapsVma> vmas;
};

// Parses maps text; `name` labels errors ("NAME:LINE: not a /proc/PID/maps line: ...").
// Empty text is a valid empty layout. VMAs must be in increasing, non-overlapping order.
bool parse_maps(const std::string& text, const std::string& name, Layout* out, std::string* err);

// Limits on what maps input may be: a line is a header of at most about 100 bytes and a path
// of at most PATH_MAX (4096) bytes, which the kernel's escaping can make four times longer.
constexpr size_t kMaxMapsLine = 4 * 4096 + 128;
constexpr size_t kMaxMapsBytes = 1UL << 30;  // about ten million VMAs; a process has at most vm.max_map_count

// Reads and parses a maps file line by line ("-": standard input). Only regular files are
// read (procfs's /proc/PID/maps is one): a FIFO or device is an error, not a wait. False with
// *err naming the file (and the line) on failure.
bool read_maps(const std::string& path, const std::string& name, Layout* out, std::string* err);

// Teardown figures summed over every layout analysed.
struct MapsReport {
  long processes = 0;  // layouts analysed
  long skipped = 0;    // --all-processes: vanished, access denied or no address space
  long vmas = 0;       // VMAs torn down (the gate VMA excluded)
  long file_vmas = 0;  // of which file-backed
  long files = 0;      // distinct (dev, inode) per process
  plain::teardown_counts batched, unbatched;
  // --by: "comm" or "file" keys the batched teardown's batch sizes by process name or by the
  // file whose batch was processed ("" for none); set before analyze.
  std::string by;
  std::map<std::string, std::array<long, 9>> keyed;  // key -> batch sizes, indexed as batch_histogram
  long reduction() const { return unbatched.write_locks - batched.write_locks; }
  double reduction_percent() const {
    return unbatched.write_locks ? 100.0 * reduction() / unbatched.write_locks : 0.0;
  }
};

// Tears one layout down with plain::teardown, batched and unbatched, and adds it to *r.
// comm: the process's name, the key of r->by == "comm".
void analyze(const Layout& layout, MapsReport* r, const std::string& comm = "");
// The process name of a maps file: PID/comm beside PID/maps when there is one (procfs), else
// the file's name without a ".maps" suffix.
std::string comm_of(const std::string& maps_path);

// Reads a whole regular file ("-": standard input), at most kMaxMapsBytes. False with *err naming it on failure.
bool read_text_file(const std::string& path, std::string* text, std::string* err);

// Analyses every PROC_ROOT/<digits>/maps (normally "/proc"). Unreadable, vanished and empty
// ones are counted in r->skipped; a file that does not parse is an error (false, *err).
bool analyze_all_processes(const std::string& proc_root, MapsReport* r, std::string* err);

// The batch-size histogram (batch_histogram[n]: batches of n VMAs) as bpftrace prints
// `@ = lhist(vb->count, 0, 8, 1)`: a count of 8 falls in the [8, ...) bucket.
std::string lhist_text(const long (&histogram)[9]);

std::string report_text(const MapsReport& r, bool all_processes);
nlohmann::ordered_json report_json(const MapsReport& r);
