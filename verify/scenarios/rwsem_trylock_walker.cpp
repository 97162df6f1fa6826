// A trylock walker (reclaim's rmap walk: i_mmap_trylock_read; and i_mmap_trylock_write) against
// a reader and a writer that may time out and request handoff while the reader holds the lock:
// the trylocks must fail rather than take a lock that is handed to the waiting writer.
#include "model/rwsem_count.hpp"
#include "verify/search/scenario_base.hpp"

struct rwsem_trylock_walker : scenario_base<rwsem_trylock_walker, 3> {
  rwsem_count_model sem{"sem"};
  rl::var<int> data;  // what the semaphore protects

  rwsem_trylock_walker() {
    data($) = 0;
    trace_name(&data, "data protected by sem");
  }

  void thread(unsigned i) {
    if (i == 0) {
      sem.down_read();
      (void)(int)data($);
      sem.up_read();
    } else if (i == 1) {
      sem.down_write();
      data($) = data($) + 1;
      sem.up_write();
    } else {
      if (sem.down_read_trylock()) {  // rmap_walk_file with rwc->try_lock
        (void)(int)data($);
        sem.up_read();
      }
      if (sem.down_write_trylock()) {
        data($) = data($) + 10;
        sem.up_write();
      }
    }
    do_exit();  // the task's own reference goes: a late waker must have taken one
  }

  void after() {
    VM_CHECK(data($) == 1 || data($) == 11, "lost update", "counter is %d", (int)data($));
    VM_CHECK(sem.count.load(rl::memory_order_relaxed) == 0, "count leak", "count is %#lx after every unlock",
             sem.count.load(rl::memory_order_relaxed));
  }
};

VMAVERIFY_SCENARIO(rwsem_trylock_walker, "rwsem_trylock_walker",
                   "faithful rw_semaphore: down_read_trylock and down_write_trylock against a reader and a writer "
                   "that may request handoff",
                   "full+reduce");
