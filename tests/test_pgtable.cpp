// The page-table model on its own: free_pgd_range (model/pgtable.hpp) driven by the very same
// free_pgtables over plain objects, against freed table pages computed independently here:
// a table page is freed exactly when it is in use by the torn-down range and lies wholly inside
// [floor, ceiling) (ceiling 0: the top), i.e. no VMA outside the range can still need it.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include "model/mm_plain.hpp"

namespace {

using table = std::pair<int, unsigned long>;  // (pt_level, base)
struct vma_spec {
  unsigned long start, end;
};

// The independent oracle: no rounding tricks, just spans.
std::set<table> expected_freed(const std::vector<vma_spec>& all, size_t first, size_t count, unsigned long floor,
                               unsigned long ceiling) {
  std::set<table> used, freed;
  for (size_t i = first; i < first + count; i++)
    for (int l = PUD_TABLE; l <= PTE_TABLE; l++)
      for (unsigned long a = all[i].start & ~(pt_span(pt_level(l)) - 1); a < all[i].end; a += pt_span(pt_level(l))) {
        used.insert({l, a});
        if (a + pt_span(pt_level(l)) == 0) break;
      }
  for (const table& t : used) {
    unsigned long t_end = t.second + pt_span(pt_level(t.first));  // 0: the top
    bool below_ceiling = ceiling == 0 || (t_end != 0 && t_end <= ceiling);
    if (t.second >= floor && below_ceiling) freed.insert(t);
  }
  return freed;
}

struct teardown_run {
  std::set<table> freed;
  int double_frees = 0;
};

// Tear down all[first, first + count) as free_pgtables does (exit: the whole layout with floor
// FIRST_USER_ADDRESS and ceiling USER_PGTABLES_CEILING; munmap: prev's end and next's start).
teardown_run run_teardown(const std::vector<vma_spec>& all, size_t first, size_t count, unsigned long floor,
                          unsigned long ceiling) {
  plain::page_tables pt;
  for (const vma_spec& v : all) pt.populate(v.start, v.end);
  std::vector<plain::vm_area_struct> vmas(count);
  std::vector<plain::vm_area_struct*> order;
  for (size_t i = 0; i < count; i++) {
    vmas[i].vm_start = all[first + i].start;
    vmas[i].vm_end = all[first + i].end;
    order.push_back(&vmas[i]);
  }
  plain::teardown(order, teardown_variant::batched, &pt, floor, ceiling);
  teardown_run r;
  r.double_frees = pt.double_frees;
  r.freed.insert(pt.freed.begin(), pt.freed.end());
  return r;
}

std::string show(const std::set<table>& s) {
  std::string o;
  char b[64];
  for (const table& t : s) {
    std::snprintf(b, sizeof b, "%s@%#lx ", pt_level_name(pt_level(t.first)), t.second);
    o += b;
  }
  return o;
}

// Whether the munmap of all[first, first + count) frees what the oracle says, and nothing twice.
bool munmap_agrees(const std::vector<vma_spec>& all, size_t first, size_t count, std::string* why) {
  unsigned long floor = first > 0 ? all[first - 1].end : FIRST_USER_ADDRESS;
  unsigned long ceiling = first + count < all.size() ? all[first + count].start : USER_PGTABLES_CEILING;
  teardown_run r = run_teardown(all, first, count, floor, ceiling);
  std::set<table> want = expected_freed(all, first, count, floor, ceiling);
  if (r.double_frees == 0 && r.freed == want) return true;
  *why = "munmap of [" + std::to_string(first) + ", " + std::to_string(first + count) + ") of " +
         std::to_string(all.size()) + ": freed " + show(r.freed) + "expected " + show(want);
  return false;
}
void expect_munmap(const std::vector<vma_spec>& all, size_t first, size_t count) {
  std::string why;
  EXPECT_TRUE(munmap_agrees(all, first, count, &why)) << why;
}

// Random layouts near the boundaries that matter; every contiguous munmap of up to 3 VMAs and
// the exit of the whole layout. Returns how many teardowns disagree with the oracle.
int random_disagreements(int layouts, std::string* first_why) {
  std::mt19937_64 rng(20261203);
  const unsigned long bases[] = {0x0, 0x400000, PUD_SIZE * 0x1fc00 - 3 * PMD_SIZE, 0x7fbf22400000, 0x7ffffe000000};
  const unsigned long gaps[] = {0, PAGE_SIZE, PMD_SIZE - PAGE_SIZE, PMD_SIZE, PMD_SIZE + PAGE_SIZE, 3 * PMD_SIZE, PUD_SIZE};
  const unsigned long sizes[] = {PAGE_SIZE, 3 * PAGE_SIZE, PMD_SIZE - PAGE_SIZE, PMD_SIZE, PMD_SIZE + 5 * PAGE_SIZE, 4 * PMD_SIZE};
  int bad = 0;
  for (int n = 0; n < layouts; n++) {
    std::vector<vma_spec> l;
    unsigned long a = bases[rng() % std::size(bases)] + (rng() % 4) * PAGE_SIZE;
    if (a == 0) a = PAGE_SIZE;
    for (int v = 0, nv = 1 + rng() % 5; v < nv; v++) {
      unsigned long size = sizes[rng() % std::size(sizes)], gap = v ? gaps[rng() % std::size(gaps)] : 0;
      if (a + gap + size > 0x7ffffffff000 || a + gap + size < a) break;
      l.push_back({a + gap, a + gap + size});
      a += gap + size;
    }
    if (l.empty()) continue;
    std::string why;
    for (size_t first = 0; first < l.size(); first++)
      for (size_t count = 1; count <= 3 && first + count <= l.size(); count++)
        if (!munmap_agrees(l, first, count, &why) && !bad++) *first_why = why;
    teardown_run r = run_teardown(l, 0, l.size(), FIRST_USER_ADDRESS, USER_PGTABLES_CEILING);
    if ((r.double_frees || r.freed != expected_freed(l, 0, l.size(), 0, 0)) && !bad++)
      *first_why = "exit freed " + show(r.freed);
  }
  return bad;
}

constexpr unsigned long M2 = PMD_SIZE, G1 = PUD_SIZE, K4 = PAGE_SIZE;

}  // namespace

TEST(PageTables, ExitFreesEveryTable) {
  std::vector<vma_spec> l = {{0x5583e180f000, 0x5583e181a000}, {0x7fbf22414000, 0x7fbf2264a000},
                             {0x7ffc54978000, 0x7ffc54999000}};
  teardown_run r = run_teardown(l, 0, l.size(), FIRST_USER_ADDRESS, USER_PGTABLES_CEILING);
  // 2 PUD tables (0x558..., 0x7f8...), 3 PMD tables, 4 PTE tables, counted by hand.
  EXPECT_EQ(r.freed.size(), 2u + 3u + 4u) << show(r.freed);
  EXPECT_EQ(r.double_frees, 0);
}

TEST(PageTables, MunmapBetweenNeighboursSharingBothPteTablesFreesNothing) {
  // tests/data/sleep.maps: libc across the PMD boundary at 0x7fbf22600000, with neighbours
  // in its first and last PTE tables (the munmap_vs_truncate scenario).
  std::vector<vma_spec> l = {{0x7fbf22472000, 0x7fbf22475000}, {0x7fbf22475000, 0x7fbf2264a000},
                             {0x7fbf22657000, 0x7fbf22658000}};
  teardown_run r = run_teardown(l, 1, 1, l[0].end, l[2].start);
  EXPECT_TRUE(r.freed.empty()) << show(r.freed);
}

TEST(PageTables, MunmapWithoutNeighboursFreesUpToThePudTable) {
  std::vector<vma_spec> l = {{0x7f0000200000, 0x7f0000400000}};
  teardown_run r = run_teardown(l, 0, 1, FIRST_USER_ADDRESS, USER_PGTABLES_CEILING);
  std::set<table> want = {{PUD_TABLE, 0x7f0000000000}, {PMD_TABLE, 0x7f0000000000},
                          {PTE_TABLE, 0x7f0000200000}};
  EXPECT_EQ(show(r.freed), show(want));
}

TEST(PageTables, GapJustBelowAndJustAbovePmdSize) {
  for (unsigned long gap : {M2 - K4, M2, M2 + K4}) {
    std::vector<vma_spec> l = {{0x7f0000100000, 0x7f0000180000}, {0x7f0000180000 + gap, 0x7f0000200000 + gap},
                               {0x7f0000200000 + 2 * gap, 0x7f0000280000 + 2 * gap}};
    for (size_t i = 0; i < l.size(); i++) expect_munmap(l, i, 1);
    expect_munmap(l, 0, 3);
  }
}

TEST(PageTables, NeighboursAcrossAGigabyteBoundary) {
  std::vector<vma_spec> l = {{G1 * 0x1fc00 - 3 * K4, G1 * 0x1fc00}, {G1 * 0x1fc00, G1 * 0x1fc00 + 5 * K4},
                             {G1 * 0x1fc01 + M2, G1 * 0x1fc01 + 2 * M2}};
  for (size_t i = 0; i < l.size(); i++) expect_munmap(l, i, 1);
}

TEST(PageTables, BottomAndTopOfTheAddressSpace) {
  // FIRST_USER_ADDRESS is 0 on x86-64; the top user page ends at TASK_SIZE_MAX 0x7ffffffff000,
  // and USER_PGTABLES_CEILING 0 stands for the top: the "- 1" comparisons must not wrap.
  std::vector<vma_spec> l = {{0x1000, 0x3000}, {0x400000, 0x401000}, {0x7ffffffde000, 0x7ffffffff000}};
  for (size_t i = 0; i < l.size(); i++) expect_munmap(l, i, 1);
  teardown_run r = run_teardown(l, 0, l.size(), FIRST_USER_ADDRESS, USER_PGTABLES_CEILING);
  EXPECT_EQ(show(r.freed), show(expected_freed(l, 0, l.size(), 0, 0)));
}

TEST(PageTables, RandomLayoutsAgreeWithTheOracle) {
  std::string why;
  EXPECT_EQ(random_disagreements(400, &why), 0) << why;
}

// The same comparison fails for each seeded bug in the freeing code: the test can fail.
TEST(PageTables, OracleCatchesEveryFreeingMutant) {
  for (Mutant m : {Mutant::free_pgd_range_end_not_lowered, Mutant::free_pmd_range_no_minus_one,
                   Mutant::free_pgtables_ceiling_caller, Mutant::free_pgtables_floor_group_start}) {
    g_active_mutant = m;
    std::string why;
    EXPECT_GT(random_disagreements(400, &why), 0) << (int)m;
    g_active_mutant = Mutant::none;
  }
}
