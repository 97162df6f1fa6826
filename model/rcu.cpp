#include "model/rcu.hpp"
#include "model/call_chain.hpp"

#include "model/trace_names.hpp"

rcu_domain* g_rcu = nullptr;
// Per thread: how deeply the task is nested in read-side sections (irqs off, then rcu_read_lock
// in pte_offset_map); only the outermost holds the grace period off.
static int g_rcu_depth[8];

rcu_domain::rcu_domain() {
  for (int& d : g_rcu_depth) d = 0;
  gp.init(true, false, false, false, RL_INFO);
  announce_sync_primitive(&gp);
  trace_name(relacy_impl_address(&gp), "RCU grace period");
  g_rcu = this;
}

rcu_domain::~rcu_domain() {
  gp.deinit(RL_INFO);
  if (g_rcu == this) g_rcu = nullptr;
}

void rcu_read_lock() {
  KERNEL_FRAME();
  if (!g_rcu || g_rcu->readers == 0) {  // a scenario bug: its grace periods would not wait
    std::fprintf(stderr, "model: an RCU reader in a world that declares none (rcu_domain::readers)\n");
    std::abort();
  }
  if (g_rcu_depth[rl::thread_index()]++) return;  // nested: the outer section holds it
  announce_blocking_lock();
  g_rcu->gp.lock_shared(RL_INFO);
}

void rcu_read_unlock() {
  KERNEL_FRAME();
  if (--g_rcu_depth[rl::thread_index()] == 0) g_rcu->gp.unlock_shared(RL_INFO);
}

void synchronize_rcu() {
  KERNEL_FRAME();
  if (!g_rcu || g_rcu->readers == 0) return;
  announce_blocking_lock();
  g_rcu->gp.lock_exclusive(RL_INFO);
  g_rcu->gp.unlock_exclusive(RL_INFO);
}
