// The search engine's state (verify/search/shard_scheduler.hpp, verify/search/step_footprint.hpp): its
// settings and figures, apart from the driver (verify/search/explore.cpp), so that the engine links on
// its own (the seeded-bug runs of tests/reduction/seeded_bugs.py build it without the model).
#include "verify/search/shard_scheduler.hpp"

namespace exploration {

ShardPlan g_shard;
static std::array<int, 32> no_twins() {
  std::array<int, 32> a;
  a.fill(-1);
  return a;
}
std::array<int, 32> g_twin_of = no_twins();
bool g_symmetry = true;
bool g_twin_misuse = false;
bool g_twin_yield = false;
bool g_setup_after_split = false;
char g_nondeterminism[160];
uint64_t g_foreign_iterations = 0;
bool g_reduce = false;
bool g_blocking_lock[32];
sync_primitive g_sync_primitives[kSyncPrimitives];
unsigned g_sync_primitive_count = 0;
bool g_sync_primitives_full = false;
uint64_t g_reduction_fallbacks = 0;
uint64_t g_blocked_iterations = 0;
uint64_t g_backtracks[kRaceKinds] = {};
uint64_t g_floor_loads = 0, g_floor_unkept = 0;
uint64_t g_fence_races_unused = 0;
history_reader* g_history_reader = nullptr;
uint64_t g_events_from_text = 0;
uint64_t g_unnamed_heap_objects = 0;
bool g_check_event_fields = false;
uint64_t g_event_fields_unlike_text = 0;

// rl::history_mgr keeps its entries private and has no reader. An explicit instantiation may
// name a private member (C++17 [temp.explicit]/14): this one hands out the member's pointer, so
// that Relacy is read as it is, neither copied nor patched.
namespace {
struct entries_tag {
  typedef relacy_entries rl::history_mgr::*type;
  friend type member(entries_tag);
};
template <typename Tag, typename Tag::type Member>
struct member_of {
  friend typename Tag::type member(Tag) { return Member; }
};
template struct member_of<entries_tag, &rl::history_mgr::exec_history_>;
}  // namespace

const relacy_entries& entries_of(rl::history_mgr& h) { return h.*member(entries_tag()); }
rl::string g_failure_state;

}  // namespace exploration
