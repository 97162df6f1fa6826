// Two writers take one faithful rw_semaphore and each increment a protected counter.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_two_writers : scenario_base<rwsem_two_writers, 2> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  static constexpr int twin_of(rl::thread_id_t i) { return i == 1 ? 0 : -1; }  // the two writers

  rwsem_two_writers() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned) {
    sem.down_write();
    data($) = data($) + 1;
    sem.up_write();
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() { VM_CHECK(data($) == 2, "lost update", "counter is %d after two locked increments", (int)data($)); }
};

VMAVERIFY_SCENARIO(rwsem_two_writers, "rwsem_two_writers",
                   "faithful rw_semaphore: two writers, down_write/increment/up_write each", "full+reduce");
