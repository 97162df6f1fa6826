// A writer and a reader on one faithful rw_semaphore, one lock round each: the reader
// queues behind the writer and the writer behind the reader, in every order.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_reader_writer : scenario_base<rwsem_reader_writer, 2> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects

  rwsem_reader_writer() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i == 0) {
      sem.down_write();
      data($) = 1;
      sem.up_write();
    } else {
      sem.down_read();
      (void)(int)data($);
      sem.up_read();
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_reader_writer, "rwsem_reader_writer",
                   "faithful rw_semaphore: one writer and one reader, one lock round each", "full+reduce");
