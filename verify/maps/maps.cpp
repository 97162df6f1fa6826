#include "verify/maps/maps.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include "verify/report/json_out.hpp"
#include "verify/maps/lhist.hpp"

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// 1..max_digits hex digits (16 fill an unsigned long, so no overflow).
bool hex(const char*& p, const char* e, unsigned long* v, int max_digits = 16) {
  const char* s = p;
  unsigned long x = 0;
  for (int d; p < e && (d = hex_digit(*p)) >= 0; p++) {
    if (p - s == max_digits) return false;
    x = x << 4 | (unsigned long)d;
  }
  *v = x;
  return p > s;
}

bool dec(const char*& p, const char* e, unsigned long* v) {
  const char* s = p;
  unsigned long x = 0;
  for (; p < e && *p >= '0' && *p <= '9'; p++) {
    unsigned long d = (unsigned long)(*p - '0');
    if (x > (~0UL - d) / 10) return false;
    x = x * 10 + d;
  }
  *v = x;
  return p > s;
}

// The kernel separates the fields with one space; accept any run of blanks.
bool blanks(const char*& p, const char* e) {
  const char* s = p;
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  return p > s;
}

bool perms_ok(const char* p) {
  return (p[0] == 'r' || p[0] == '-') && (p[1] == 'w' || p[1] == '-') && (p[2] == 'x' || p[2] == '-') &&
         (p[3] == 's' || p[3] == 'p');
}

// show_vma_header_prefix (fs/proc/task_mmu.c), then the padded name if there is one.
bool parse_line(const char* p, const char* e, MapsVma* v) {
  unsigned long major, minor;
  if (!hex(p, e, &v->start) || p == e || *p++ != '-' || !hex(p, e, &v->end) || !blanks(p, e)) return false;
  if (e - p < 4 || !perms_ok(p)) return false;
  v->perms.assign(p, 4);
  p += 4;
  if (!blanks(p, e) || !hex(p, e, &v->offset) || !blanks(p, e)) return false;
  // dev_t: 12-bit major, 20-bit minor, printed %02x:%02x.
  if (!hex(p, e, &major, 3) || p == e || *p++ != ':' || !hex(p, e, &minor, 5)) return false;
  v->dev_major = (unsigned)major;
  v->dev_minor = (unsigned)minor;
  if (!blanks(p, e) || !dec(p, e, &v->inode)) return false;
  v->path.clear();
  v->deleted = false;
  if (p < e) {
    // Anonymous lines end in "inode "; a name follows seq_pad's padding. Names are escaped by
    // the kernel (a newline shows as \012) and do not start with a blank, so the rest is the name.
    if (!blanks(p, e)) return false;
    static const char kDeleted[] = " (deleted)";
    const size_t n = sizeof kDeleted - 1;
    if ((size_t)(e - p) > n && std::memcmp(e - n, kDeleted, n) == 0) {
      v->deleted = true;
      e -= n;
    }
    v->path.assign(p, e);
  }
  return v->start < v->end;
}

std::string shown(const char* p, const char* e) {
  std::string s(p, std::min<size_t>(e - p, 120));
  for (char& c : s)
    if ((unsigned char)c < 0x20) c = '?';
  return s + (e - p > 120 ? "..." : "");
}

struct FileKey {
  unsigned long dev, inode;
  bool operator==(const FileKey& o) const { return dev == o.dev && inode == o.inode; }
};
struct FileKeyHash {
  size_t operator()(const FileKey& k) const { return (k.inode * 0x9E3779B97F4A7C15ULL) ^ k.dev; }
};

void add(plain::teardown_counts* to, const plain::teardown_counts& c) {
  to->write_locks += c.write_locks;
  to->removed += c.removed;
  for (int i = 0; i < 9; i++) to->batch_histogram[i] += c.batch_histogram[i];
}


// Appends the VMA of one line to *out, checking the order free_pgtables relies on.
bool add_line(const char* p, const char* e, const std::string& name, long line, Layout* out, std::string* err) {
  if ((size_t)(e - p) > kMaxMapsLine) {
    *err = name + ":" + std::to_string(line) + ": line longer than " + std::to_string(kMaxMapsLine) +
           " bytes, not a /proc/PID/maps line: " + shown(p, e);
    return false;
  }
  MapsVma v;
  if (!parse_line(p, e, &v)) {
    *err = name + ":" + std::to_string(line) + ": not a /proc/PID/maps line: " + shown(p, e);
    return false;
  }
  // free_pgtables walks the VMAs in address order; maps lists them so.
  if (!out->vmas.empty() && v.start < out->vmas.back().end) {
    *err = name + ":" + std::to_string(line) + ": VMA overlaps or precedes the previous one: " + shown(p, e);
    return false;
  }
  out->vmas.push_back(std::move(v));
  return true;
}

}  // namespace

bool parse_maps(const std::string& text, const std::string& name, Layout* out, std::string* err) {
  out->vmas.clear();
  const char* p = text.data();
  const char* end = p + text.size();
  for (long line = 1; p < end; line++) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
    const char* e = nl ? nl : end;
    if (!add_line(p, e, name, line, out, err)) return false;
    p = nl ? nl + 1 : end;
  }
  return true;
}

namespace {

// Opens a file to read as maps text: "-" is standard input; anything else must be a regular
// file (procfs's maps files are), so that a FIFO or a device cannot block or flood the reader.
// O_NONBLOCK: opening a FIFO without a writer would otherwise wait for one.
int open_maps_input(const std::string& path, std::string* err) {
  if (path == "-") return 0;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *err = "cannot open " + path + ": " + std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = "cannot read " + path + ": not a regular file (a maps file or a /proc/PID/maps)";
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// read(2), retried when interrupted; -1 with *err naming path on failure.
ssize_t read_some(int fd, char* buf, size_t size, const std::string& path, std::string* err) {
  for (;;) {
    ssize_t n = read(fd, buf, size);
    if (n >= 0 || errno != EINTR) {
      if (n < 0) *err = "cannot read " + path + ": " + std::strerror(errno);
      return n;
    }
  }
}

}  // namespace

bool read_maps(const std::string& path, const std::string& name, Layout* out, std::string* err) {
  out->vmas.clear();
  int fd = open_maps_input(path, err);
  if (fd < 0) return false;
  // Line by line through a fixed buffer: memory follows the VMAs, never the input's size.
  std::vector<char> buf(std::max<size_t>(65536, 2 * kMaxMapsLine));
  size_t used = 0, total = 0;
  long line = 1;
  bool ok = true, eof = false;
  while (ok && !eof) {
    ssize_t n = read_some(fd, buf.data() + used, buf.size() - used, path, err);
    if (n < 0) {
      ok = false;
      break;
    }
    eof = n == 0;
    used += (size_t)n;
    total += (size_t)n;
    if (total > kMaxMapsBytes) {  // e.g. /dev/zero: fail instead of exhausting memory
      *err = "cannot read " + path + ": larger than 1 GiB, not a maps file";
      ok = false;
      break;
    }
    const char* p = buf.data();
    const char* end = p + used;
    for (const char* nl; ok && (nl = static_cast<const char*>(std::memchr(p, '\n', end - p))); p = nl + 1)
      ok = add_line(p, nl, name, line++, out, err);
    if (ok && eof && p < end) ok = add_line(p, end, name, line, out, err), p = end;
    if (ok && (size_t)(end - p) > kMaxMapsLine) ok = add_line(p, end, name, line, out, err);  // names the limit
    used = (size_t)(end - p);
    std::memmove(buf.data(), p, used);
  }
  if (fd != 0) close(fd);
  return ok;
}

std::string comm_of(const std::string& maps_path) {
  const size_t slash = maps_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : maps_path.substr(0, slash + 1);
  const std::string base = maps_path.substr(dir.size());
  if (base == "maps") {
    std::string comm, err;
    if (read_text_file(dir + "comm", &comm, &err) && !comm.empty()) {
      if (comm.back() == '\n') comm.pop_back();
      return comm;
    }
  }
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".maps") == 0) return base.substr(0, base.size() - 5);
  return base;
}

// The batch sizes of one teardown into its key's histogram.
static void add_keyed(MapsReport* r, const std::string& key, const long (&h)[9]) {
  auto& k = r->keyed.try_emplace(key, std::array<long, 9>{}).first->second;
  for (int i = 0; i < 9; i++) k[i] += h[i];
}

void analyze(const Layout& layout, MapsReport* r, const std::string& comm) {
  // File identity is (dev, inode): the loader opens each library once and maps all its segments
  // from that one struct file, so the batch (which compares vm_file) sees them as one file. Two
  // opens of one inode would split a batch in the kernel; maps cannot show that, so these counts
  // are the batched code's best case for each layout.
  std::unordered_map<FileKey, int, FileKeyHash> ids;
  ids.reserve(layout.vmas.size() / 4 + 8);  // libraries have about five VMAs each
  std::vector<plain::vm_area_struct> vmas;
  std::vector<int> file_of;
  std::vector<std::string> name_of_file;  // by id: the path maps shows, for --by file
  vmas.reserve(layout.vmas.size());
  file_of.reserve(layout.vmas.size());
  FileKey last{~0UL, 0};
  int last_id = -1;
  for (const MapsVma& m : layout.vmas) {
    if (m.gate()) continue;
    plain::vm_area_struct v;
    v.vm_start = m.start;
    v.vm_end = m.end;
    // Hugetlb VMAs cannot be told from maps (smaps's KernelPageSize could): all are taken as
    // non-hugetlb, so all go through the batch. Shared ('s') mappings need nothing special here.
    v.hugetlb = false;
    int id = -1;
    if (m.file_backed()) {
      FileKey k{(unsigned long)m.dev_major << 20 | m.dev_minor, m.inode};
      if (!(k == last)) {
        last = k;
        auto added = ids.emplace(k, (int)ids.size());
        last_id = added.first->second;
        if (added.second)
          name_of_file.push_back(!m.path.empty() ? m.path : std::to_string(m.dev_major) + ":" + std::to_string(m.dev_minor) +
                                                                " " + std::to_string(m.inode));
      }
      id = last_id;
    }
    vmas.push_back(v);
    file_of.push_back(id);
  }
  std::vector<plain::address_space> spaces(ids.size());
  std::vector<plain::file> files(ids.size());
  std::vector<plain::vm_area_struct*> order(vmas.size());
  for (size_t i = 0; i < files.size(); i++) files[i].f_mapping = &spaces[i];
  for (size_t i = 0; i < vmas.size(); i++) {
    if (file_of[i] >= 0) {
      vmas[i].vm_file = &files[file_of[i]];
      r->file_vmas++;
    }
    order[i] = &vmas[i];
  }
  for (teardown_variant variant : {teardown_variant::batched, teardown_variant::unbatched}) {
    // Each file counts on its own, so that --by file can tell whose batches they were.
    std::vector<plain::teardown_counts> per_file(spaces.size());
    for (size_t i = 0; i < spaces.size(); i++) spaces[i].counts = &per_file[i];
    plain::teardown(order, variant);
    plain::teardown_counts c;
    for (const plain::teardown_counts& f : per_file) add(&c, f);
    add(variant == teardown_variant::batched ? &r->batched : &r->unbatched, c);
    if (variant != teardown_variant::batched) continue;
    if (r->by == "comm") add_keyed(r, comm, c.batch_histogram);
    if (r->by == "file")
      for (size_t i = 0; i < per_file.size(); i++) add_keyed(r, name_of_file[i], per_file[i].batch_histogram);
  }
  r->processes++;
  r->vmas += (long)vmas.size();
  r->files += (long)ids.size();
}

bool read_text_file(const std::string& path, std::string* text, std::string* err) {
  int fd = open_maps_input(path, err);
  if (fd < 0) return false;
  text->clear();
  char chunk[65536];
  for (ssize_t n; (n = read_some(fd, chunk, sizeof chunk, path, err)) != 0;) {
    if (n < 0 || text->size() + (size_t)n > kMaxMapsBytes) {
      if (n > 0) *err = "cannot read " + path + ": larger than 1 GiB, not a maps file";
      if (fd != 0) close(fd);
      return false;
    }
    text->append(chunk, (size_t)n);
  }
  if (fd != 0) close(fd);
  return true;
}

bool analyze_all_processes(const std::string& proc_root, MapsReport* r, std::string* err) {
  DIR* dir = opendir(proc_root.c_str());
  if (!dir) {
    *err = "cannot open " + proc_root + ": " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> pids;
  while (dirent* d = readdir(dir)) {
    const char* n = d->d_name;
    if (*n && std::strspn(n, "0123456789") == std::strlen(n)) pids.push_back(n);
  }
  closedir(dir);
  std::string text, read_err;
  Layout layout;
  for (const std::string& pid : pids) {
    const std::string path = proc_root + "/" + pid + "/maps";
    // A live process can change its layout between two read() chunks and so show overlapping
    // lines once; read it again before calling the file bad.
    bool ok = false, gone = false;
    for (int attempt = 0; attempt < 2 && !ok && !gone; attempt++) {
      // A file read whole, not streamed: a parse error may be the race above, not bad input.
      gone = !read_text_file(path, &text, &read_err) || text.empty();
      ok = !gone && parse_maps(text, path, &layout, err);
    }
    if (gone) {
      r->skipped++;  // vanished, access denied, or no address space (kernel thread, zombie)
      continue;
    }
    if (!ok) return false;
    analyze(layout, r, comm_of(path));
  }
  return true;
}

// batch_histogram[n] counts batches of n VMAs: each is one `lhist(vb->count, 0, 8, 1)` sample.
static Lhist batch_lhist(const long (&histogram)[9]) {
  Lhist h(0, 8, 1);
  for (int n = 1; n <= 8; n++) h.add(n, histogram[n]);
  return h;
}

std::string lhist_text(const long (&histogram)[9]) { return lhist_map_text({{"", batch_lhist(histogram)}}, false); }

// The keyed histograms (--by) as bpftrace prints `@[KEY] = lhist(vb->count, 0, 8, 1)`.
static std::string keyed_lhist_text(const MapsReport& r) {
  std::vector<std::pair<std::string, Lhist>> keyed;
  for (const auto& k : r.keyed) {
    long h[9];
    std::copy(k.second.begin(), k.second.end(), h);
    Lhist l = batch_lhist(h);
    if (l.total()) keyed.emplace_back(k.first, l);  // bpftrace has no key that was never updated
  }
  return lhist_map_text(keyed, true);
}

std::string report_text(const MapsReport& r, bool all_processes) {
  char b[512];
  std::string s;
  if (all_processes)
    std::snprintf(b, sizeof b, "processes: %ld read, %ld skipped (vanished, access denied or no address space)\n",
                  r.processes, r.skipped);
  else
    std::snprintf(b, sizeof b, "processes: %ld read\n", r.processes);
  s += b;
  std::snprintf(b, sizeof b,
                "VMAs: %ld, file-backed %ld (%ld files)\n"
                "i_mmap_rwsem write-lock acquisitions at teardown (free_pgtables):\n"
                "  unbatched (unlink_file_vma per VMA): %ld\n"
                "  batched (unlink_file_vma_batch):     %ld\n"
                "  reduction: %ld (%.1f%%)\n"
                "batch sizes at unlink_file_vma_batch_process (bpftrace lhist(vb->count, 0, 8, 1)%s):\n",
                r.vmas, r.file_vmas, r.files, r.unbatched.write_locks, r.batched.write_locks, r.reduction(),
                r.reduction_percent(), r.by.empty() ? "" : (", keyed by " + r.by).c_str());
  return s + b + (r.by.empty() ? lhist_text(r.batched.batch_histogram) : keyed_lhist_text(r));
}

Json report_json(const MapsReport& r) {
  Json j = {{"processes", r.processes},
          {"skipped", r.skipped},
          {"vmas", r.vmas},
          {"file_vmas", r.file_vmas},
          {"files", r.files},
          {"lock_acquisitions_unbatched", r.unbatched.write_locks},
          {"lock_acquisitions_batched", r.batched.write_locks},
          {"reduction", r.reduction()},
          {"reduction_percent", r.reduction_percent()},
          {"removed_unbatched", r.unbatched.removed},
          {"removed_batched", r.batched.removed},
          {"histogram", std::vector<long>(r.batched.batch_histogram + 1, r.batched.batch_histogram + 9)},
          {"lhist", lhist_json(batch_lhist(r.batched.batch_histogram))}};
  if (!r.by.empty()) {
    j["by"] = r.by;
    Json keyed = Json::object();
    for (const auto& k : r.keyed) {
      long h[9];
      std::copy(k.second.begin(), k.second.end(), h);
      Lhist l = batch_lhist(h);
      if (l.total()) keyed[k.first] = lhist_json(l);
    }
    j["lhist_by"] = keyed;
  }
  return j;
}
