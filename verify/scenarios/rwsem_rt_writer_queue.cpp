// Three writers on two CPUs (model/preempt.hpp): task 0 takes the lock on CPU 1; then task 1, a
// normal writer on CPU 0, and task 2, a SCHED_FIFO writer on CPU 0, queue in either order. Being RT,
// task 2 sets RWSEM_FLAG_HANDOFF at once. The bit must reserve the lock for the first waiter and
// must not send task 2 spinning: a spinning RT task keeps task 1 off CPU 0, so once task 0 lets
// go, nothing would ever take the lock (the livelock b613c7f31476 fixed, where the waiter that
// set the bit, first or not, spun in the handoff retry). It needs the owner running on another
// CPU: on one CPU the RT writer preempts the owner and sleeps instead of spinning.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_rt_writer_queue : scenario_base<rwsem_rt_writer_queue, 3> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  // The scenario's order, not the kernel's: tasks 1 and 2 start once task 0 holds sem, asleep
  // until then (wait_for_completion / complete_all, which give the CPU up while they wait).
  rl::generic_event held;
  static constexpr int cpu_of(rl::thread_id_t i) { return i == 0 ? 1 : 0; }
  static constexpr bool rt_task(rl::thread_id_t i) { return i == 2; }

  rwsem_rt_writer_queue() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }
  void before() {
    scenario_base::before();
    held.init(true, false, RL_INFO);
    announce_sync_primitive(&held);
  }

  void thread(unsigned i) {
    if (i != 0) {
      g_cpus.in_schedule[i] = true;
      held.wait(false, false, RL_INFO);
      g_cpus.in_schedule[i] = false;
    }
    sem.down_write();
    if (i == 0) held.set(RL_INFO);
    data($) = data($) + 1;
    sem.up_write();
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    held.deinit(RL_INFO);
    VM_CHECK(data($) == 3, "lost update", "counter is %d after three locked increments", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_rt_writer_queue, "rwsem_rt_writer_queue",
                   "faithful rw_semaphore with preemption on two CPUs: a writer on CPU 1, a normal and a SCHED_FIFO writer queued on CPU 0",
                   "full+reduce");
