// Exit of a process whose VMAs sit across a 1 GiB boundary and at the top of the user address
// space: a file mapping ending exactly at a PUD boundary with its neighbour starting there, and
// the stack's region ending just below TASK_SIZE (0x7ffffffff000), where ceiling 0 stands for
// the top and every "- 1" comparison of free_pgd_range must not wrap. An rmap walker walks the
// file that has a VMA on each side of the boundary.
#include "verify/scenarios/teardown_world.hpp"

struct teardown_stack_at_top : exit_against<teardown_stack_at_top> {
  static constexpr layout<4, 1> kLayout = {{
      {0x7fbfffffd000, 0x7fc000000000, 1},  // data file r--p, ends at a 1 GiB boundary
      {0x7fc000000000, 0x7fc000005000, 1},  // the same file rw-p, starts there
      {0x7ffc54978000, 0x7ffc54999000, 0},  // [stack] (tests/data/sleep.maps)
      {0x7fffffffe000, 0x7ffffffff000, 0},  // the top user page
  }, {{"data.db", 0}}};

  static void concurrently(teardown_world<rwsem_abstract>* w) { rmap_walk_file(&w->mappings[0], 3); }
};

VMAVERIFY_TEARDOWN_SCENARIO(teardown_stack_at_top, "teardown_stack_at_top",
                            "abstract rw_semaphore: exit of a file mapped across a 1 GiB boundary, the stack "
                            "and the top user page, against rmap_walk_file on the file",
                            "full");
