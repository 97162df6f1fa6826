// A stale wake-up: a reader granted by one waker is still on that waker's wake_q when it comes
// back for a second round and is granted by another waker. The second waker's wake_q_add finds
// the task queued and leaves the wake-up to the first (kernel/sched/core.c), so the grant must be
// published before that claim (rwsem_mark_wake: "issuing the wakeup (either by us or someone
// else) after setting the reader waiter to nil"). Two writers take turns being those wakers.
#include "model/rwsem_count.hpp"
#include "verify/scenario_base.hpp"

struct rwsem_stale_wakeup : scenario_base<rwsem_stale_wakeup, 3> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects

  rwsem_stale_wakeup() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i < 2) {
      sem.down_write();
      data($) = data($) + 1;
      sem.up_write();
    } else {
      for (int round = 0; round < 2; round++) {
        sem.down_read();
        (void)(int)data($);
        sem.up_read();
      }
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 2, "lost update", "counter is %d after two locked increments", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_stale_wakeup, "rwsem_stale_wakeup",
                   "faithful rw_semaphore: two writers and a reader taking the lock twice, so that the reader can "
                   "be granted while still on an earlier waker's wake_q",
                   "bound:3");
