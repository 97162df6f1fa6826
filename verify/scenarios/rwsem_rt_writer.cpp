// An RT writer and a normal writer share CPU 0 (model/preempt.hpp: full preemption, the RT task
// keeps the CPU until it sleeps). The RT writer can preempt the other anywhere preemption is
// enabled, and, first in the queue, sets the handoff bit at once and spins on the owner
// (rwsem_down_write_slowpath's goto trylock_again) instead of sleeping while the owner looks
// like it is about to let go. The owner must never be caught between taking the count and
// recording itself in sem->owner (v5.19's livelock, fixed by 48dfb5d2560d with
// preempt_disable() around the write trylock): the RT writer would then spin for ever on a
// NULL owner that cannot run. (A third task, a reader on CPU 1, takes the unreduced search past
// 50 million iterations.)
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_rt_writer : scenario_base<rwsem_rt_writer, 2> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  static constexpr int cpu_of(rl::thread_id_t) { return 0; }
  static constexpr bool rt_task(rl::thread_id_t i) { return i == 1; }

  rwsem_rt_writer() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned) {
    sem.down_write();
    data($) = data($) + 1;
    sem.up_write();
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 2, "lost update", "counter is %d after two locked increments", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_rt_writer, "rwsem_rt_writer",
                   "faithful rw_semaphore with preemption: a SCHED_FIFO writer and a normal writer on one CPU",
                   "full+reduce");
