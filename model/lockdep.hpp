// The lock-order half of lockdep (kernel/locking/lockdep.c). Every lock belongs to a class, as
// lockdep's lock_class_key makes all i_mmap_rwsems one class and all hugetlb vma_locks another,
// and taking a lock while holding one of another class records that order. An order that
// closes a cycle is a `deadlock`, reported when it is taken, whether or not the explored
// interleaving blocks: tasks that take two classes in opposite orders deadlock in some run,
// possibly with other instances of the classes, which a scenario may not have. A trylock adds
// no order (it never waits), but what is taken while it is held does.
//
// Simplified: a lock's class is its name up to " of " ("i_mmap_rwsem of A": i_mmap_rwsem);
// nesting within one class is not recorded (lockdep wants a _nested annotation there, and no
// modelled path nests one); reads and writes order alike (down_read is not recursive); the graph
// lives for one iteration, which holds every order its tasks take since every task runs to
// its end (or the iteration fails).
#pragma once

// lock_acquire (before the lock is taken, as lockdep does) and lock_release.
void lockdep_acquire(const char* lock_name, bool trylock);
void lockdep_release(const char* lock_name);
// A new iteration: no lock held, no order recorded.
void lockdep_reset();
