// Three writers: one holds the lock while two queue behind it. The first queued writer may time
// out and set RWSEM_FLAG_HANDOFF; the lock is then the first waiter's, and the second writer,
// trying in its own slow-path loop, must not take it (rwsem_try_write_lock's handoff_set test).
// The first writer also reaches the handoff retry path: it spins on the owner and tries again
// without sleeping when the lock has been let go.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_handoff_two_writers : scenario_base<rwsem_handoff_two_writers, 3> {
  static constexpr int spurious_wakeups = 1;  // every wait loop must survive a wake-up not meant for it
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects
  static constexpr int twin_of(rl::thread_id_t i) { return (int)i - 1; }  // three writers: started in order

  rwsem_handoff_two_writers() {
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
    VM_CHECK(data($) == 3, "lost update", "counter is %d after three locked increments", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_handoff_two_writers, "rwsem_handoff_two_writers",
                   "faithful rw_semaphore: three writers, one lock round each; queued writers may time out and "
                   "request handoff, and may wake spuriously",
                   "bound:3");
