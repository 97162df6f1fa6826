// A normal reader and an RT writer share CPU 0 (model/preempt.hpp: full preemption, the RT task
// keeps the CPU until it sleeps). The RT writer, first in the queue, sets the handoff bit at once
// and spins on the owner while the owner looks like it is about to let go. The reader must never
// be caught between adding its bias to the count and recording itself as a reader owner
// (v6.3's livelock, fixed by 3f5245538a19 with preempt_disable() around the read trylock): the
// RT writer would spin for ever on a NULL owner that cannot run.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_rt_writer_reader : scenario_base<rwsem_rt_writer_reader, 2> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  static constexpr int cpu_of(rl::thread_id_t) { return 0; }
  static constexpr bool rt_task(rl::thread_id_t i) { return i == 1; }

  rwsem_rt_writer_reader() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i == 0) {
      sem.down_read();
      (void)(int)data($);
      sem.up_read();
    } else {
      sem.down_write();
      data($) = data($) + 1;
      sem.up_write();
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 1, "lost update", "counter is %d after one locked increment", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_rt_writer_reader, "rwsem_rt_writer_reader",
                   "faithful rw_semaphore with preemption: a normal reader and a SCHED_FIFO writer on one CPU", "full+reduce");
