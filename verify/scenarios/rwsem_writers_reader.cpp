// Two writers and a reader: the reader queues between writers, and a writer queues behind a
// reader, so that rwsem_mark_wake wakes a writer, and readers wake a writer on their way out.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_writers_reader : scenario_base<rwsem_writers_reader, 3> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  static constexpr int twin_of(rl::thread_id_t i) { return i == 1 ? 0 : -1; }  // the two writers

  rwsem_writers_reader() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i < 2) {
      sem.down_write();
      data($) = data($) + 1;
      sem.up_write();
    } else {
      sem.down_read();
      int seen = data($);
      VM_CHECK(seen >= 0 && seen <= 2, "torn read", "reader saw %d", seen);
      sem.up_read();
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 2, "lost update", "counter is %d after two locked increments", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_writers_reader, "rwsem_writers_reader",
                   "faithful rw_semaphore: two writers and a reader, one lock round each", "full+reduce");
