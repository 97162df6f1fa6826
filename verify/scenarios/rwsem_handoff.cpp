// A writer and a reader that comes back: a writer that waited too long sets
// RWSEM_FLAG_HANDOFF, and the lock must then go to it, not to the returning reader.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_handoff : scenario_base<rwsem_handoff, 2> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects

  rwsem_handoff() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i == 0) {
      sem.down_write();
      data($) = 1;
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
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_handoff, "rwsem_handoff",
                   "faithful rw_semaphore: a writer and a reader taking the lock twice; waiters may time out "
                   "and request handoff",
                   "full+reduce");
