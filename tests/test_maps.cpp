// vmaverify maps: the /proc/PID/maps parser, the lock counts of plain::teardown over real and
// synthetic layouts, and the command line.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include "verify/maps/lhist.hpp"
#include "verify/maps/maps.hpp"

static Layout parse_ok(const std::string& text) {
  Layout l;
  std::string err;
  EXPECT_TRUE(parse_maps(text, "t", &l, &err)) << err;
  return l;
}

static std::string parse_err(const std::string& text) {
  Layout l;
  std::string err;
  EXPECT_FALSE(parse_maps(text, "t.maps", &l, &err));
  return err;
}

static MapsReport report_of(const std::string& text) {
  MapsReport r;
  analyze(parse_ok(text), &r);
  return r;
}

// A line of the given range and inode (0: anonymous), kernel-formatted.
static std::string line(unsigned long start, unsigned long end, unsigned long inode, const char* path = "/lib/x.so") {
  char b[256];
  std::snprintf(b, sizeof b, "%08lx-%08lx r--p 00000000 fe:00 %lu%s%s\n", start, end, inode, inode ? "   " : " ",
                inode ? path : "");
  return b;
}

TEST(MapsParse, FieldsOfAFileLine) {
  Layout l = parse_ok("7fbf2249b000-7fbf225f1000 r-xp 00026000 fe:00 332835                     "
                      "/usr/lib/x86_64-linux-gnu/libc.so.6\n");
  ASSERT_EQ(l.vmas.size(), 1u);
  const MapsVma& v = l.vmas[0];
  EXPECT_EQ(v.start, 0x7fbf2249b000UL);
  EXPECT_EQ(v.end, 0x7fbf225f1000UL);
  EXPECT_EQ(v.perms, "r-xp");
  EXPECT_EQ(v.offset, 0x26000UL);
  EXPECT_EQ(v.dev_major, 0xfeu);
  EXPECT_EQ(v.dev_minor, 0u);
  EXPECT_EQ(v.inode, 332835UL);
  EXPECT_EQ(v.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_FALSE(v.deleted);
  EXPECT_TRUE(v.file_backed());
}

TEST(MapsParse, AnonymousAndPseudoPaths) {
  Layout l = parse_ok(
      "5583e3265000-5583e3286000 rw-p 00000000 00:00 0                          [heap]\n"
      "7fbf22472000-7fbf22475000 rw-p 00000000 00:00 0 \n"
      "7fbf22476000-7fbf22477000 rw-p 00000000 00:00 0\n"
      "7fbf22664000-7fbf22668000 r--p 00000000 00:00 0                          [vvar]\n"
      "7fbf2266a000-7fbf2266c000 r-xp 00000000 00:00 0                          [vdso]\n"
      "7ffc54978000-7ffc54999000 rw-p 00000000 00:00 0                          [stack]\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n");
  ASSERT_EQ(l.vmas.size(), 7u);
  const char* paths[] = {"[heap]", "", "", "[vvar]", "[vdso]", "[stack]", "[vsyscall]"};
  for (size_t i = 0; i < 7; i++) {
    EXPECT_EQ(l.vmas[i].path, paths[i]);
    EXPECT_FALSE(l.vmas[i].file_backed()) << i;
    EXPECT_EQ(l.vmas[i].gate(), i == 6);
  }
  // The gate VMA is not torn down by free_pgtables.
  MapsReport r;
  analyze(l, &r);
  EXPECT_EQ(r.vmas, 6);
  EXPECT_EQ(r.file_vmas, 0);
  EXPECT_EQ(r.batched.write_locks, 0);
}

TEST(MapsParse, DeletedSharedAndSpacesInPaths) {
  Layout l = parse_ok(
      "7f0000000000-7f0000001000 rw-s 00000000 00:01 1026                       /dev/zero (deleted)\n"
      "7f0000001000-7f0000002000 r--p 00001000 103:02 77                        /home/a b/my lib.so\n"
      "7f0000002000-7f0000003000 r--p 00000000 fe:00 78                         /tmp/x y (deleted)\n"
      "7f0000003000-7f0000004000 r--s 00000000 00:05 9                          /memfd:name with spaces (deleted)\n");
  ASSERT_EQ(l.vmas.size(), 4u);
  EXPECT_EQ(l.vmas[0].perms, "rw-s");
  EXPECT_EQ(l.vmas[0].path, "/dev/zero");
  EXPECT_TRUE(l.vmas[0].deleted);
  EXPECT_TRUE(l.vmas[0].file_backed());  // shmem: vm_file set, in the shmem inode's i_mmap
  EXPECT_EQ(l.vmas[1].path, "/home/a b/my lib.so");
  EXPECT_FALSE(l.vmas[1].deleted);
  EXPECT_EQ(l.vmas[1].dev_major, 0x103u);
  EXPECT_EQ(l.vmas[1].dev_minor, 2u);
  EXPECT_EQ(l.vmas[2].path, "/tmp/x y");
  EXPECT_TRUE(l.vmas[2].deleted);
  EXPECT_EQ(l.vmas[3].path, "/memfd:name with spaces");
  EXPECT_TRUE(l.vmas[3].deleted);
}

TEST(MapsParse, EmptyInputIsAnEmptyLayout) {
  EXPECT_TRUE(parse_ok("").vmas.empty());
  MapsReport r = report_of("");
  EXPECT_EQ(r.processes, 1);
  EXPECT_EQ(r.vmas, 0);
  EXPECT_EQ(r.unbatched.write_locks, 0);
  EXPECT_EQ(r.batched.write_locks, 0);
  EXPECT_EQ(r.reduction_percent(), 0.0);
}

TEST(MapsParse, LastLineWithoutNewline) {
  EXPECT_EQ(parse_ok("00400000-00401000 r--p 00000000 08:02 5   /bin/x").vmas.size(), 1u);
}

TEST(MapsParse, MalformedLinesNameTheLine) {
  const std::string good = "00400000-00401000 r--p 00000000 08:02 5   /bin/x\n";
  EXPECT_EQ(parse_err(good + good.substr(0, 30) + "\n"),
            "t.maps:2: not a /proc/PID/maps line: " + good.substr(0, 30));
  const char* bad[] = {
      "hello world",
      "00400000 r--p 00000000 08:02 5   /bin/x",            // no end
      "00500000-00401000 r--p 00000000 08:02 5   /bin/x",    // end before start
      "00400000-00401000 rwzp 00000000 08:02 5   /bin/x",    // perms
      "00400000-00401000 r--p 00000000 0802 5   /bin/x",     // dev
      "00400000-00401000 r--p 00000000 08:02 x5  /bin/x",    // inode
      "00400000-00401000 r--p 00000000 08:02 5/bin/x",       // no blank before the name
      "00400000-00401000 r--p 00000000 08:02 99999999999999999999999 /x",  // inode overflow
      "00400000-00000000000000401000 r--p 00000000 08:02 5 /x",            // 17 hex digits
      "",                                                    // blank line
  };
  for (const char* b : bad) {
    std::string err = parse_err(line(0x1000, 0x2000, 7) + line(0x2000, 0x3000, 7) + b + "\n" + good);
    EXPECT_EQ(err.rfind("t.maps:3: not a /proc/PID/maps line: ", 0), 0u) << b << " -> " << err;
  }
}

TEST(MapsParse, OutOfOrderIsAnError) {
  std::string err = parse_err(line(0x2000, 0x3000, 1) + line(0x1000, 0x2000, 1));
  EXPECT_EQ(err.rfind("t.maps:2: VMA overlaps or precedes the previous one", 0), 0u) << err;
  parse_err(line(0x2000, 0x4000, 1) + line(0x3000, 0x5000, 1));
}

// sleep(1) of coreutils (dynamically linked), captured from /proc/PID/maps on the build machine.
// 36 VMAs in the mm (the [vsyscall] gate VMA is not), 28 of them file-backed. The PMD gathering
// splits the layout into four groups: the sleep binary (5 VMAs; the [heap] starts 27 MiB later,
// beyond vm_end + 2 MiB), the [heap] alone, one contiguous group from LC_CTYPE to ld.so, and
// the [stack]. Batches, in address order:
//   sleep x5                                                  -> 1 batch of 5
//   LC_CTYPE, LC_NUMERIC, LC_TIME, LC_COLLATE, LC_MONETARY,
//   SYS_LC_MESSAGES, LC_PAPER, LC_NAME (8 different files)    -> 8 batches of 1
//   anon (skipped), libc.so.6 x5                              -> 1 batch of 5
//   anon (skipped), LC_ADDRESS, LC_TELEPHONE, LC_MEASUREMENT,
//   gconv-modules.cache, LC_IDENTIFICATION                    -> 5 batches of 1
//   anon, [vvar], [vvar_vclock], [vdso] (skipped), ld.so x5   -> 1 batch of 5
// so 16 lock round trips batched against 28 unbatched: [1, 2) 13, [5, 6) 3.
TEST(MapsCounts, SleepBinary) {
  std::string text, err;
  ASSERT_TRUE(read_text_file(VMAVERIFY_TESTDATA "/sleep.maps", &text, &err)) << err;
  MapsReport r = report_of(text);
  EXPECT_EQ(r.vmas, 36);
  EXPECT_EQ(r.file_vmas, 28);
  EXPECT_EQ(r.files, 16);
  EXPECT_EQ(r.unbatched.write_locks, 28);
  EXPECT_EQ(r.batched.write_locks, 16);
  EXPECT_EQ(r.reduction(), 12);
  EXPECT_EQ(r.batched.removed, 28);
  EXPECT_EQ(r.unbatched.removed, 28);
  const long expected[9] = {0, 13, 0, 0, 0, 3, 0, 0, 0};
  for (int i = 0; i < 9; i++) EXPECT_EQ(r.batched.batch_histogram[i], expected[i]) << "bucket " << i;
}

TEST(MapsCounts, RunsOfOneFileSplitEveryEight) {
  std::string t;
  for (unsigned long i = 0; i < 19; i++) t += line(0x400000 + i * 0x1000, 0x401000 + i * 0x1000, 42);
  MapsReport r = report_of(t);
  EXPECT_EQ(r.unbatched.write_locks, 19);
  EXPECT_EQ(r.batched.write_locks, 3);  // 8 + 8 + 3
  EXPECT_EQ(r.batched.batch_histogram[8], 2);
  EXPECT_EQ(r.batched.batch_histogram[3], 1);
  EXPECT_EQ(r.batched.removed, 19);
}

TEST(MapsCounts, AnonymousInsideARunDoesNotFlush) {
  std::string t = line(0x400000, 0x401000, 42) + line(0x401000, 0x402000, 0) + line(0x402000, 0x403000, 42) +
                  line(0x403000, 0x404000, 0);
  MapsReport r = report_of(t);
  EXPECT_EQ(r.vmas, 4);
  EXPECT_EQ(r.file_vmas, 2);
  EXPECT_EQ(r.batched.write_locks, 1);
  EXPECT_EQ(r.batched.batch_histogram[2], 1);
}

TEST(MapsCounts, AnotherFileSplitsTheRun) {
  MapsReport r = report_of(line(0x400000, 0x401000, 42) + line(0x401000, 0x402000, 43) + line(0x402000, 0x403000, 42));
  EXPECT_EQ(r.files, 2);
  EXPECT_EQ(r.batched.write_locks, 3);
  EXPECT_EQ(r.unbatched.write_locks, 3);
}

TEST(MapsCounts, SameInodeOnAnotherDeviceIsAnotherFile) {
  MapsReport r = report_of(
      "00400000-00401000 r--p 00000000 fe:00 42   /a\n"
      "00401000-00402000 r--p 00000000 fe:01 42   /b\n");
  EXPECT_EQ(r.files, 2);
  EXPECT_EQ(r.batched.write_locks, 2);
}

TEST(MapsCounts, BatchesDoNotSpanGatheredGroups) {
  const unsigned long pmd = 2UL << 20;
  // The next VMA starts exactly vm_end + PMD_SIZE: gathered, one batch.
  MapsReport near = report_of(line(0x400000, 0x401000, 42) + line(0x401000 + pmd, 0x402000 + pmd, 42));
  EXPECT_EQ(near.batched.write_locks, 1);
  // One page further: a new free_pgd_range group, a new batch.
  MapsReport far = report_of(line(0x400000, 0x401000, 42) + line(0x402000 + pmd, 0x403000 + pmd, 42));
  EXPECT_EQ(far.batched.write_locks, 2);
  EXPECT_EQ(far.batched.batch_histogram[1], 2);
}

TEST(MapsCounts, ReportsAggregateOverLayouts) {
  std::string text, err;
  ASSERT_TRUE(read_text_file(VMAVERIFY_TESTDATA "/sleep.maps", &text, &err)) << err;
  MapsReport r;
  analyze(parse_ok(text), &r);
  analyze(parse_ok(text), &r);
  EXPECT_EQ(r.processes, 2);
  EXPECT_EQ(r.unbatched.write_locks, 56);
  EXPECT_EQ(r.batched.write_locks, 32);
  EXPECT_EQ(r.batched.batch_histogram[5], 6);
}

// The patch's own histogram, reproduced from its counts exactly as bpftrace prints
// `@ = lhist(vb->count, 0, 8, 1)`: "@: " header, label in 16 columns, count in 8, empty end
// buckets trimmed, a blank line after the map.
TEST(MapsReportText, LhistAsBpftracePrintsIt) {
  const long h[9] = {0, 799579, 0, 3009, 3009, 326442, 0, 0, 0};
  EXPECT_EQ(lhist_text(h),
            "@: \n"
            "[1, 2)            799579 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
            "[2, 3)                 0 |                                                    |\n"
            "[3, 4)              3009 |                                                    |\n"
            "[4, 5)              3009 |                                                    |\n"
            "[5, 6)            326442 |@@@@@@@@@@@@@@@@@@@@@                               |\n"
            "\n");
}

// A full batch (count 8) is bpftrace's overflow bucket of lhist(count, 0, 8, 1); leading empty
// buckets are trimmed too.
TEST(MapsReportText, FullBatchIsTheOverflowBucket) {
  const long h[9] = {0, 0, 0, 1, 0, 0, 0, 0, 4};
  EXPECT_EQ(lhist_text(h),
            "@: \n"
            "[3, 4)                 1 |@@@@@@@@@@@@@                                       |\n"
            "[4, 5)                 0 |                                                    |\n"
            "[5, 6)                 0 |                                                    |\n"
            "[6, 7)                 0 |                                                    |\n"
            "[7, 8)                 0 |                                                    |\n"
            "[8, ...)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
            "\n");
  Lhist l(0, 8, 1);
  l.add(8, 4);
  l.add(-1);
  EXPECT_EQ(lhist_json(l), nlohmann::ordered_json::parse(R"([{"max": -1, "count": 1}, {"min": 0, "max": 0, "count": 0},
      {"min": 1, "max": 1, "count": 0}, {"min": 2, "max": 2, "count": 0}, {"min": 3, "max": 3, "count": 0},
      {"min": 4, "max": 4, "count": 0}, {"min": 5, "max": 5, "count": 0}, {"min": 6, "max": 6, "count": 0},
      {"min": 7, "max": 7, "count": 0}, {"min": 8, "count": 4}])"));
}

// Keyed maps: one "@[KEY]: " block per key, the largest total last, a blank line between.
TEST(MapsReportText, KeyedByCommAndFile) {
  std::string text, err;
  ASSERT_TRUE(read_text_file(VMAVERIFY_TESTDATA "/sleep.maps", &text, &err)) << err;
  Layout layout;
  ASSERT_TRUE(parse_maps(text, "sleep.maps", &layout, &err)) << err;
  MapsReport by_comm;
  by_comm.by = "comm";
  analyze(layout, &by_comm, "sleep");
  analyze(layout, &by_comm, "sleep");
  Layout one;
  ASSERT_TRUE(parse_maps("7f0000000000-7f0000001000 r--p 00000000 08:01 42 /usr/lib/x.so\n", "x", &one, &err));
  analyze(one, &by_comm, "cat");
  const std::string s = report_text(by_comm, false);
  const size_t cat = s.find("@[cat]: \n[1, 2)                 1 |"), sleep = s.find("@[sleep]: \n[1, 2)                26 |");
  EXPECT_NE(cat, std::string::npos) << s;
  EXPECT_NE(sleep, std::string::npos) << s;
  EXPECT_LT(cat, sleep) << "the smaller total first";
  EXPECT_NE(s.find("|\n\n@[sleep]"), std::string::npos) << "a blank line between keys";

  MapsReport by_file;
  by_file.by = "file";
  analyze(layout, &by_file, "sleep");
  const nlohmann::ordered_json j = report_json(by_file);
  EXPECT_EQ(j.at("by"), "file");
  long batches = 0;
  for (const auto& f : j.at("lhist_by").items())
    for (const auto& b : f.value()) batches += b.at("count").get<long>();
  EXPECT_EQ(batches, 16) << j;  // every write-lock round trip of the batched teardown is one batch
  EXPECT_TRUE(j.at("lhist_by").contains("/usr/lib/x86_64-linux-gnu/libc.so.6")) << j.at("lhist_by");
}

TEST(MapsReportText, JsonHasTheFigures) {
  std::string text, err;
  ASSERT_TRUE(read_text_file(VMAVERIFY_TESTDATA "/sleep.maps", &text, &err)) << err;
  const nlohmann::ordered_json j = report_json(report_of(text));
  const std::pair<const char*, long> figures[] = {{"lock_acquisitions_unbatched", 28}, {"lock_acquisitions_batched", 16},
                                                  {"reduction", 12}, {"vmas", 36}, {"file_vmas", 28},
                                                  {"processes", 1}, {"skipped", 0}};
  for (const auto& kv : figures) EXPECT_EQ(j.at(kv.first), kv.second) << kv.first << " in " << j;
  EXPECT_EQ(j.at("histogram"), nlohmann::ordered_json({13, 0, 0, 0, 3, 0, 0, 0})) << j;
  EXPECT_EQ(j.at("lhist"), nlohmann::ordered_json::parse(R"([{"min": 1, "max": 1, "count": 13},
      {"min": 2, "max": 2, "count": 0}, {"min": 3, "max": 3, "count": 0}, {"min": 4, "max": 4, "count": 0},
      {"min": 5, "max": 5, "count": 3}])")) << j;
}

// A fake /proc: one process, one kernel thread (empty maps), one vanished (no maps), non-PID entries.
TEST(MapsAllProcesses, SkipsEmptyAndVanished) {
  std::string root = testing::TempDir() + "/maps_procXXXXXX";
  ASSERT_NE(mkdtemp(&root[0]), nullptr);
  std::string text, err;
  ASSERT_TRUE(read_text_file(VMAVERIFY_TESTDATA "/sleep.maps", &text, &err)) << err;
  for (const char* d : {"/100", "/2", "/31", "/self", "/sys"}) mkdir((root + d).c_str(), 0755);
  std::ofstream(root + "/100/maps") << text;
  std::ofstream(root + "/2/maps");
  std::ofstream(root + "/self/maps") << text;
  MapsReport r;
  ASSERT_TRUE(analyze_all_processes(root, &r, &err)) << err;
  EXPECT_EQ(r.processes, 1);
  EXPECT_EQ(r.skipped, 2);
  EXPECT_EQ(r.batched.write_locks, 16);
  std::ofstream(root + "/31/maps") << "garbage\n";
  EXPECT_FALSE(analyze_all_processes(root, &r, &err));
  EXPECT_NE(err.find(root + "/31/maps:1: not a /proc/PID/maps line: garbage"), std::string::npos) << err;
  EXPECT_EQ(system(("rm -rf '" + root + "'").c_str()), 0);
}

TEST(MapsAllProcesses, ThisMachine) {
  MapsReport r;
  std::string err;
  ASSERT_TRUE(analyze_all_processes("/proc", &r, &err)) << err;
  EXPECT_GE(r.processes, 1);  // at least this test
  EXPECT_EQ(r.batched.removed, r.file_vmas);
  EXPECT_EQ(r.unbatched.removed, r.file_vmas);
  EXPECT_EQ(r.unbatched.write_locks, r.file_vmas);
  EXPECT_LE(r.batched.write_locks, r.unbatched.write_locks);
}

// The command line: exit status and output of `vmaverify maps`.
static int run_cli(const std::string& args, std::string* out) {
  FILE* p = popen((std::string(VMAVERIFY_BIN) + " maps " + args + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  out->clear();
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out->append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(MapsCli, FileTextAndJson) {
  std::string out, f = VMAVERIFY_TESTDATA "/sleep.maps";
  EXPECT_EQ(run_cli(f, &out), 0) << out;
  EXPECT_NE(out.find("unbatched (unlink_file_vma per VMA): 28"), std::string::npos) << out;
  EXPECT_NE(out.find("reduction: 12 (42.9%)"), std::string::npos) << out;
  EXPECT_NE(out.find("@: \n[1, 2)                13 |@@@@"), std::string::npos) << out;
  EXPECT_NE(out.find("\n[5, 6)                 3 |@@@@@@@@@@@@      "), std::string::npos) << out;
  EXPECT_EQ(out.find("[6, 7)"), std::string::npos) << "empty end buckets are trimmed\n" << out;
  EXPECT_EQ(run_cli(f + " " + f + " --json", &out), 0) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j.at("processes"), 2) << out;
  EXPECT_EQ(j.at("lock_acquisitions_batched"), 32) << out;
}

TEST(MapsCli, EmptyFileIsZero) {
  std::string out;
  EXPECT_EQ(run_cli(VMAVERIFY_TESTDATA "/empty.maps --json", &out), 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j.at("lock_acquisitions_unbatched"), 0) << out;
  EXPECT_EQ(j.at("lock_acquisitions_batched"), 0) << out;
}

TEST(MapsCli, BadInputExitsTwoNamingIt) {
  std::string out, f = VMAVERIFY_TESTDATA "/malformed.maps";
  EXPECT_EQ(run_cli(f, &out), 2);
  EXPECT_EQ(out, "vmaverify maps: " + f +
                     ":3: not a /proc/PID/maps line: 00652000-00655000 rw-q 00052000 08:02 173521      "
                     "/usr/bin/dbus-daemon\n");
  EXPECT_EQ(run_cli(VMAVERIFY_TESTDATA "/no-such.maps", &out), 2);
  EXPECT_NE(out.find("vmaverify maps: cannot open " VMAVERIFY_TESTDATA "/no-such.maps"), std::string::npos) << out;
  EXPECT_EQ(run_cli(VMAVERIFY_TESTDATA, &out), 2);  // a directory
  EXPECT_NE(out.find(VMAVERIFY_TESTDATA), std::string::npos) << out;
  EXPECT_EQ(run_cli("", &out), 2);
  EXPECT_EQ(run_cli("--bogus", &out), 2);
}

TEST(MapsCli, AllProcesses) {
  std::string out;
  EXPECT_EQ(run_cli("--all-processes --json", &out), 0) << out;
  EXPECT_TRUE(nlohmann::json::parse(out).at("skipped").is_number_integer()) << out;
  EXPECT_EQ(run_cli("--all-processes", &out), 0) << out;
  EXPECT_NE(out.find(" read, "), std::string::npos) << out;
}
