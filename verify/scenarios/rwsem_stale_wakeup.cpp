// A stale wake-up: the reader is already on another waker's wake_q (a futex or a signal waker
// elsewhere in the kernel that queued it and has not yet run wake_up_q) when the rw_semaphore
// grants it the lock. rwsem_mark_wake's wake_q_add then finds the task queued and leaves the
// wake-up to that other waker (kernel/sched/core.c), whose wake-up can come before or after the
// grant; so the grant must be published before the claim ("issuing the wakeup (either by us or
// someone else) after setting the reader waiter to nil").
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_stale_wakeup : scenario_base<rwsem_stale_wakeup, 3> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  wake_q_head other_wake_q;  // the other waker's, with the reader on it from the start

  rwsem_stale_wakeup() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
    wake_q_add(&other_wake_q, &tasks[1]);  // e.g. futex_wake_mark, with its reference to the task
  }

  void thread(unsigned i) {
    if (i == 0) {
      sem.down_write();
      data($) = data($) + 1;
      sem.up_write();
    } else if (i == 1) {
      sem.down_read();
      (void)(int)data($);
      sem.up_read();
    } else {
      wake_up_q(&other_wake_q);  // the other waker's wake-up, at any point of the reader's locking
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 1, "lost update", "counter is %d after one locked increment", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_stale_wakeup, "rwsem_stale_wakeup",
                   "faithful rw_semaphore: a writer and a reader, and a waker from elsewhere that has the reader on "
                   "its wake_q (a stale wake-up that can come before or after the grant)",
                   "full+reduce");
