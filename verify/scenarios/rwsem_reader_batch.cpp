// Readers woken in a batch while a writer queues: a writer holds the lock, two readers queue
// behind it, and one reader comes back for a second round, so that a waker can find it still on
// another waker's wake_q (the kernel's wake_q_add does not queue it twice). A second writer
// queues among the readers; rwsem_mark_wake skips it and grants the readers around it.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_reader_batch : scenario_base<rwsem_reader_batch, 3> {
  static constexpr int spurious_wakeups = 1;  // every wait loop must survive a wake-up not meant for it
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects

  rwsem_reader_batch() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i == 0) {
      sem.down_write();
      data($) = data($) + 1;
      sem.up_write();
    } else {
      for (unsigned round = 0; round < i; round++) {  // the second reader comes back once
        sem.down_read();
        int seen = data($);
        VM_CHECK(seen == 0 || seen == 1, "torn read", "reader saw %d", seen);
        sem.up_read();
      }
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 1, "lost update", "counter is %d after one locked increment", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_reader_batch, "rwsem_reader_batch",
                   "faithful rw_semaphore: a writer and two readers queued behind it, woken in a batch; the "
                   "second reader takes the lock twice, so wake-ups overlap on its wake_q node",
                   "bound:3");
