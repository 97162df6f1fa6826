// A reader that a fatal signal may end while it waits (down_read_killable) for a writer, with a
// second reader: the signal can come before, with or just after the grant (the reader rechecks
// waiter.task under wait_lock), and a reader that leaves the queue first wakes the one behind
// it (out_nolock, rwsem_del_wake_waiter).
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_killable_reader : scenario_base<rwsem_killable_reader, 3> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects

  rwsem_killable_reader() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i == 0) {
      sem.down_write();
      data($) = data($) + 1;
      sem.up_write();
    } else if (i == 1) {
      if (sem.down_read_killable() == 0) {
        (void)(int)data($);
        sem.up_read();
      }
    } else {
      sem.down_read();
      (void)(int)data($);
      sem.up_read();
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 1, "lost update", "counter is %d after one locked increment", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_killable_reader, "rwsem_killable_reader",
                   "faithful rw_semaphore: a writer, a reader and a killable reader that a fatal signal may end "
                   "before, with or after its grant",
                   "full+reduce");
