// The end of the checker's rwsem translation unit: the tree's __down_read ... __up_write behind
// the operations the faithful rw_semaphore hands over to (model/kernel_rwsem.hpp).
#pragma once

namespace krwsem {

static_assert(sizeof(rw_semaphore) <= KERNEL_RWSEM_STORAGE, "KERNEL_RWSEM_STORAGE is too small");

inline rw_semaphore* kshim_sem(void* storage) { return static_cast<rw_semaphore*>(storage); }

#pragma push_macro("new")
#undef new
inline void kshim_init(void* storage, void* count, void* wait_lock, const char* name) {
  ::new (storage) rw_semaphore(static_cast<atomic_long_t*>(count), static_cast<rl::mutex*>(wait_lock), name);
}
#pragma pop_macro("new")

const kernel_rwsem_ops kshim_ops = {
    &kshim_init,
    [](void* s) { kshim_sem(s)->~rw_semaphore(); },
    [](void* s) { __down_read(kshim_sem(s)); },
    [](void* s) { return (int)__down_read_trylock(kshim_sem(s)); },
    [](void* s) { __up_read(kshim_sem(s)); },
    [](void* s) { __down_write(kshim_sem(s)); },
    [](void* s) { return (int)__down_write_trylock(kshim_sem(s)); },
    [](void* s) { __up_write(kshim_sem(s)); },
#ifdef KSHIM_RWSEM_KILLABLE
    [](void* s) { return __down_read_killable(kshim_sem(s)); },
    [](void* s) { return __down_write_killable(kshim_sem(s)); },
#else
    nullptr,
    nullptr,
#endif
};

struct kshim_registrar {
  kshim_registrar() {
    g_kernel_rwsem_linked = &kshim_ops;
    g_kernel_rwsem_source_file = "kernel/locking/rwsem.c";
  }
} kshim_registered;

}  // namespace krwsem
