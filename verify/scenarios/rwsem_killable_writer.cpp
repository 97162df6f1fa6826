// A writer that a fatal signal may end while it waits (down_write_killable), queued between a
// reader holding the lock and a reader queued behind it (the writer's handoff request, or a
// reader-owned lock, keeps it from stealing): when the writer leaves first in the queue
// (out_nolock, rwsem_del_wake_waiter), the reader behind it must still get the lock, even if
// the last up_read's wake-up went to the writer that left.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_killable_writer : scenario_base<rwsem_killable_writer, 3> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  int killed = 0;     // checker bookkeeping: the killable writer left without the lock

  rwsem_killable_writer() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i == 1) {
      if (sem.down_write_killable() == 0) {
        data($) = data($) + 1;
        sem.up_write();
      } else {
        killed = 1;
      }
    } else {
      sem.down_read();
      (void)(int)data($);
      sem.up_read();
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 1 - killed, "lost update", "counter is %d after %d locked increments", (int)data($), 1 - killed);
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_killable_writer, "rwsem_killable_writer",
                   "faithful rw_semaphore: two readers and a killable writer between them that a fatal signal "
                   "may end while it waits, first in the queue (handoff or not)",
                   "full+reduce");
