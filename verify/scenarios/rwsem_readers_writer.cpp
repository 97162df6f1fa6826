// A writer and two readers on one faithful rw_semaphore: the readers queue behind the writer
// and the writer behind the readers, in every order.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_readers_writer : scenario_base<rwsem_readers_writer, 3> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  static constexpr int twin_of(rl::thread_id_t i) { return i == 2 ? 1 : -1; }  // the two readers

  rwsem_readers_writer() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i == 0) {
      sem.down_write();
      data($) = data($) + 1;
      sem.up_write();
    } else {
      sem.down_read();
      int seen = data($);
      VM_CHECK(seen == 0 || seen == 1, "torn read", "reader saw %d", seen);
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

VMAVERIFY_SCENARIO(rwsem_readers_writer, "rwsem_readers_writer",
                   "faithful rw_semaphore: one writer and two readers, one lock round each", "full+reduce");
