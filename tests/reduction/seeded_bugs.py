#!/usr/bin/env python3
"""Seeds one-line bugs into the search engine and reports which tests catch each.

Each bug below can make the reduced (or sharded) search lose runs, or the full search with CPUs
(model/preempt.hpp) explore runs no kernel has or miss some it has: a `verified` it should not
give. For each, the engine's own tests (tests/reduction: Dpor, the litmus files, the random
programs, Preempt's CPU programs and Repeatable) are built against a copy of the sources with
the bug in, outside the source tree, and run; a bug no test catches is a hole in the tests. The
scenario-level differentials (Reduction.*, Symmetry.*, Shards.*) need the whole model and are
not run here.

Usage: tests/reduction/seeded_bugs.py [--programs N] [--only NAME] [--timeout S] [--check]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = ["tests/reduction/test_dpor.cpp", "tests/reduction/test_litmus.cpp",
           "tests/reduction/test_random_programs.cpp", "tests/reduction/program.cpp",
           "tests/reduction/program_search.cpp", "verify/search/footprint_types.cpp", "verify/search/search_state.cpp",
           "verify/search/work_stealing.cpp",
           "tests/reduction/test_preempt.cpp", "tests/reduction/preempt_programs.cpp", "model/preempt.cpp",
           "tests/reduction/test_repeatable.cpp", "tests/reduction/repeatable_programs.cpp", "model/zeroed_atomic.cpp"]

S, F, T = "verify/search/shard_scheduler.hpp", "verify/search/step_footprint.hpp", "verify/search/footprint_types.cpp"

# name: (file, text, replacement, what the bug does)
BUGS = {
    "write_write_only": (S, "((pool_[x] | pool_[y]) & 1) && (fences ||", "((pool_[x] & pool_[y]) & 1) && (fences ||",
                         "two steps race only if both write (a load never races with a store)"),
    "sleepers_stay_asleep": (S, "return e.thread == s.thread || e.touched.conflicts(step_) ||",
                             "return e.thread == s.thread ||",
                             "a sleeping thread is not woken by a step it conflicts with"),
    "open_wait_wakes_nobody": (S, "(s.open_wait && (e.touched.global || e.touched.has_tagged(Footprint::kWaitable)));",
                               "false;",
                               "a blocked event wait wakes no sleeper before its object is known"),
    "event_not_waitable": (T, "state_event, Access::waitable>;", "state_event, Access::write>;",
                           "an event's set or reset is not marked as touching a waitable object"),
    "sleep_conflict_writes_only": (F, "if (a >> 1 == b >> 1 && ((a | b) & 1)) return true;",
                                   "if (a >> 1 == b >> 1 && ((a & b) & 1)) return true;",
                                   "sleep sets wake only on a write-write conflict"),
    "blocked_wait_empty": (S, "s.open_wait = parked && !step_.has_tagged(Footprint::kLockOrder);", "s.open_wait = false;",
                           "a blocked event wait touches nothing (the hole this project had)"),
    "completed_wait_not_in_sleep_entry": (S, "if (e.thread == b.thread) e.touched.merge(step_), e.names_move = true;", "(void)e;",
                                          "a blocked wait's footprint is not added to its sleep-set entry"),
    "initials_ignore_order": (S, "if (first) initials |= t;", "initials |= t;",
                              "any thread of notdep(i).j counts as an initial, even one ordered after another"),
    "join_every_step": (S, "if (c == Conflict::none) return;", "",
                        "every earlier step, conflicting or not, orders before j (races hidden behind it)"),
    "no_lock_races": (S, "add_lock_races(from, m);", "",
                      "a lock never races with the previous holder's lock"),
    "unlock_leaves_mutex": (F, "case mutex_op::unlock: f.add_release(mutex, true); f.add(mutex, true); return;",
                            "case mutex_op::unlock: f.add_release(mutex, true); return;",
                            "an unlock does not change the mutex a try-lock reads"),
    "trylock_read_as_lock": (F, "if (thread_ >= 32 || !g_blocking_lock[thread_]) f.add(mutex, false);", "",
                             "a successful try-lock is read as a blocking lock"),
    "blocked_lock_reads_nothing": (F, "case mutex_op::blocked: f.add_lock_order(mutex, false); return;",
                                   "case mutex_op::blocked: return;",
                                   "a blocked lock attempt reads nothing"),
    "rmw_is_a_read": (T, "add<rl::atomic_rmw_event<T, T>, Access::write>(t);",
                      "add<rl::atomic_rmw_event<T, T>, Access::read>(t);", "an exchange is read as a load"),
    # Believed equivalent under Relacy: two accesses to an rl::var that no synchronisation
    # orders are a data race in either order, and ordered ones are ordered by what the
    # reduction does read (atomics, mutexes, events).
    "var_write_is_a_read": (T, "if constexpr (A == Access::var) wrote = !e.load_;",
                            "if constexpr (A == Access::var) wrote = false;",
                            "a plain variable's store is read as a load"),
    "cas_is_a_read": (T, "add<rl::atomic_cas_event<T>, Access::write>(t);",
                      "add<rl::atomic_cas_event<T>, Access::read>(t);", "a compare-and-swap is read as a load"),
    "store_is_a_read": (T, "add<rl::atomic_store_event<T>, Access::write>(t);",
                        "add<rl::atomic_store_event<T>, Access::read>(t);", "a store is read as a load"),
    "seq_cst_fences_commute": (T, "mo_ == rl::mo_seq_cst) f.add(kSeqCstOrder, true);",
                               "mo_ == rl::mo_seq_cst) f.add(kSeqCstOrder, false);",
                               "seq_cst fences never race with each other"),
    # Believed equivalent: the scheduler makes a yielding step global on its own (schedule_impl).
    "yield_is_local": (T, "t.add(&rl::event_output<rl::yield_event>, &everything);",
                       "t.add(&rl::event_output<rl::yield_event>, &nothing);", "a yield conflicts with nothing"),
    "event_set_is_a_read": (T, "if constexpr (A == Access::waitable) return f.add_waitable(object(e, 0), true);",
                            "if constexpr (A == Access::waitable) return f.add_waitable(object(e, 0), false);",
                            "an event's set, reset or wait is read as a read of the event"),
    "reuse_one_step_too_many": (S, "while (k < analysed_ && steps_[k].depth_end <= d &&",
                                "while (k < analysed_ && steps_[k].depth_end <= d + 1 &&",
                                "the races of the step at the backtrack point are taken as already analysed"),
    "shard_range_off_by_one": (S, "(s + n - lo % n) % n < hi - lo;", "(s + n - lo % n) % n < hi - lo - 1;",
                               "the last slice of a subtree narrower than the shards is no shard's"),
    "enablers_forgotten": (S, "if (now < before) pending_.push_back({i, last});", "",
                           "a wake-up does not order the waker's step before the woken thread's"),
    # Work-stealing (split, verify/search/work_stealing.cpp).
    "worker_sleeps_parents_path": (S, "node_[m].done.back().elsewhere = node_[m].done.back().names_move;",
                                   "node_[m].done.back().elsewhere = false;",
                                   "in a worker, the parent's choices still being explored sleep, whatever they touched"),
    "tagged_names_stay": (S, "return !step_.global && step_.moving;", "return false;",
                          "an event's or a mutex's address is taken to be the same in every run"),
    # Not caught by 300 programs of each family, nor the litmus files under work-stealing: no
    # program yet has the set-up thread's stale read show up only after a split.
    "setup_mattered_after_split_kept": (S, "if (node_[0].shared) {  // split: the other processes keep the sleepers (g_setup_after_split)", "if (false) {",
                                        "the set-up thread's stale read, found after a split, changes only the process that found it"),
    # Mutexes and events announced as they are built (model/rl_env.hpp), named by their primitives.
    "announced_named_by_state": (F, "if (primitive) object = primitive;\n      else if (tags) scratch_.moving = true;",
                                 "if (primitive) {\n      } else if (tags) scratch_.moving = true;",
                                 "an announced primitive's state keeps the address Relacy gave it, taken to stay"),
    # Believed equivalent (not caught by 300 programs of each family): every iteration announces
    # its primitives again before any step, found newest first, and a full table makes every step
    # global.
    "announcements_kept": (S, "    g_sync_primitive_count = 0;  // before the test is built: it announces its primitives\n", "",
                           "the primitives announced in earlier iterations are kept (their states' addresses moved since)"),
    "announced_heap_primitive_by_address": (F, "const block* b = tags && !primitive ? nullptr : block_of(object);",
                                            "const block* b = tags ? nullptr : block_of(object);",
                                            "a mutex or event in a block of Relacy's heap is named by its address, which moves"),
    # Names of objects in blocks of Relacy's heap (history_reader: by their block).
    "heap_named_by_address": (F, "if (b && b->name) object = b->name + (object - b->begin);", "",
                              "an object in a block of Relacy's heap is named by its address, which moves from run to run"),
    "free_null_read": (F, "if (p < 4096 || p % rl::alignment) return;", "",
                       "a free of NULL is taken for an unlogged block's (its header read below address 0)"),
    "unlogged_block_unnoticed": (F, "if (touched_between(e, at, p, p + size)) unnamed_objects++;", "(void)size;",
                                 "objects in a block allocated unlogged, named by address, go unnoticed"),
    "claimed_choices_dropped": (S, "!(nd.given & bit(nd.thread[next])) && !claim(i - 1, nd.thread[next])) {",
                                "!(nd.given & bit(nd.thread[next]))) {",
                                "at a node processes share, a new choice is taken as another's, claimed or not"),
    "given_choices_claimed_again": (S, "!(nd.given & bit(nd.thread[next])) && !claim(", "!claim(",
                                    "a worker takes the choices its parent claimed for it for another process's"),
    # A worker leaves the other options of choices that are no thread's above its own to the parent.
    "own_depth_kept_on_claim": (S, "        own_depth_ = std::min(own_depth_, (long)(i - 1));\n", "",
                                "a worker that takes a choice above its split leaves the load choices below it to its parent"),
    "worker_leaves_every_load_choice": (S, "if (!nd.decision && (long)(i - 1) < own_depth_) continue;",
                                        "if (!nd.decision && own_depth_ > 0) continue;",
                                        "a worker explores no other option of a load's choice, even in its own subtrees"),
    "floor_for_a_step_of_several_objects": (F, "if (global || objects.size() != 1 || (objects[0] & 1)) return 0;",
                                            "if (global || objects.empty() || (objects[0] & 1)) return 0;",
                                            "a sleeper whose step touches several objects gets a load floor on the first"),
    "nondeterminism_unchecked": (S, "if (n.type_ != t || n.count_ != limit || nd.decision != decision) {", "if (false) {",
                                 "a run that does not repeat its recorded choices goes on with the recorded index"),
    # The test of a reversal against the threads asleep at its choice. A guide only orders a new
    # subtree's first run; no bug of it can lose one.
    "sleeper_in_v_starts_it": (S, "      if (initials & bit(e.thread)) return;", "      if (seen & bit(e.thread)) return;",
                               "a thread asleep at the choice with any step in v is taken to start v"),
    "any_sleeper_covers_v": (S, "      if (initials & bit(e.thread)) return;", "      return;",
                             "a reversal is left out whenever some thread is asleep at its choice"),
    # The CPU gate of the full search (shard_scheduler.hpp, cpu_*; model/preempt.*).
    "rt_task_preemptible": (S, "(g_cpus.preempt_count[cur] == 0 && !g_cpus.rt[cur]);", "(g_cpus.preempt_count[cur] == 0);",
                            "a SCHED_FIFO task is preempted by a normal task of its CPU"),
    "preempt_count_ignored": (S, "(g_cpus.preempt_count[cur] == 0 && !g_cpus.rt[cur]);", "(!g_cpus.rt[cur]);",
                              "a task is preempted inside preempt_disable()"),
    "sleeper_keeps_cpu": (S, "return g_cpus.in_schedule[t] && ti.block_count_", "return false && ti.block_count_",
                          "a task asleep in schedule() keeps its CPU"),
    "switch_takes_no_cpu": (S, "if (g_cpus.cpu_of[th] >= 0) g_cpus.curr[g_cpus.cpu_of[th]] = (int)th;", "",
                            "the chosen task does not take its CPU: every task may run at any time"),
    "gate_never_opens": (S, "} else if (may && gated) {", "} else if (false) {",
                         "a task kept off its CPU is never let back on"),
    # Not caught: its effect is a false livelock, and only when the spinner is the one task able
    # to run while a task of another CPU is kept off hers; no CPU program sets that up.
    "spinner_kept_off_any_cpu": (S, "if ((off & bit(t)) && g_cpus.same_cpu((int)t, (int)th)) kept_off = true;",
                                 "if (off & bit(t)) kept_off = true;",
                                 "an RT spinner counts a task of another CPU as kept off by it (a false livelock)"),
    "spin_count_kept": (S, "std::fill_n(g_cpus.lone_spins, thread_count, 0);", "",
                        "spin turns are counted across switches (a false livelock)"),
    "preempt_enable_no_point": ("model/preempt.cpp", "    rl::ctx().sched();\n", "",
                                "preempt_enable() to 0 is no preemption point"),
    # The thread chosen first, which runs the set-up (shard_scheduler.hpp, setup_matters).
    "setup_thread_ignored": (S, "if (setup_read_stale_) setup_matters();", "",
                             "the reduction chooses one thread first although which one changes what loads read"),
    # Not caught: the first threads' subtrees are kept apart at once for the threads explored
    # before the first such load (setup_matters); this line covers those explored after it, and
    # no program yet needs a third first thread to see a stale value.
    "setup_children_sleep": (S, "n.done.back().touched.global = n.done.back().touched.global || n.apart;", "",
                             "first threads chosen for the set-up put each other to sleep"),
    # Twins and yields (g_twin_yield).
    "twin_yield_ignored": (S, "if (yield && twins_) g_twin_yield = true;", "",
                           "a search with twins in which a task yields keeps its twins"),
    # Where the tree splits into shards.
    "split_choices_sleep": (S, "if (g_shard.count == 1 || n.range.hi - n.range.lo == 1)", "if (true)",
                            "a choice explored above the shard split puts its thread to sleep for its siblings"),
    # Tasks on CPUs under the reduction (add_cpu_footprint).
    "cpu_take_no_lock": (S, "        lock_cpu(c);\n        locked |= 1u << c;", "        locked |= 1u << c;",
                         "taking a CPU is no lock of the CPU"),
    "cpu_hold_reads_nothing": (S, "        step_.add(kCpuCurr + (uintptr_t)c, false);\n", "",
                               "a preemptible holder's step does not read who holds its CPU"),
    # Not caught by 4,000 CPU programs: a take still races with the hold's lock whatever orders
    # them (add_lock_races), which may cover what the release's order adds.
    "cpu_hold_release_missing": (S, "if (was && !is) step_.add_release(kCpuExclusive + (uintptr_t)d, true);", "",
                                 "the end of an exclusive hold of a CPU releases nothing"),
    "cpu_lock_race_hidden": (S, "(cpu || lock_clocks_[j * thread_count + steps_[i].thread] < (long)i))",
                             "(lock_clocks_[j * thread_count + steps_[i].thread] < (long)i))",
                             "a take of a CPU races with the hold before it only when nothing else orders them"),
    # Not caught by 8,000 CPU programs nor by a litmus file written for it: the woken task's next
    # step reads or takes its CPU's holder, and so races with a take by itself; the wake-up's read
    # may only repeat that order.
    "wake_reads_no_cpu": (S, "real_block_count(t) < before) step_.add(kCpuCurr + (uintptr_t)d, false);",
                          "real_block_count(t) < before) {}", "waking a task does not read its CPU's holder"),
    "on_cpu_read_unrecorded": ("model/preempt.hpp", "  g_cpus.on_cpu_read |= 1u << pid;\n", "",
                               "owner_on_cpu reads nothing the reduction sees"),
    # Races of two seq_cst fences, reversed only once a later step may tell their order apart
    # (fences_used).
    "fence_races_never_reversed": (S, "      races_.push_back(r);\n      fences_pending_[p] = fences_pending_.back();",
                                   "      fences_pending_[p] = fences_pending_.back();",
                                   "a race of two seq_cst fences is never reversed"),
    "fence_use_skips_j_step": (S, "const bool after_j = r.j == l || before(r.j, l);", "const bool after_j = r.j != l && before(r.j, l);",
                               "what the later fence's own step runs after the fence is not looked at"),
    # Believed equivalent: it narrows only the order part (a step that does not know), where
    # two loads of one object commute and so tell no order apart; read-read coherence is a
    # load that knows, which looks at every touch since the last store (touches()).
    "fence_use_writes_only": (S, "if (pool_[x] >> 1 == pool_[y] >> 1 && pool_[x] >> 1 != kSeqCstOrder) return true;",
                              "if (pool_[x] >> 1 == pool_[y] >> 1 && pool_[x] >> 1 != kSeqCstOrder && ((pool_[x] | pool_[y]) & 1)) return true;",
                              "two loads of one object do not tell the fences' order apart (read-read coherence)"),
    "fence_use_first_fence_only": (S, "used = before_or(unordered_[x], r.i);", "used = unordered_[x] == r.i;",
                                   "only the first fence's own step counts as its side, not the steps ordered before it"),
    # Not caught by 600 fenced programs of each family: the first run through j goes on in
    # Relacy's order (each thread to its end), whose steps after j use the fences' order
    # whenever a later run below j does, in the programs tried; a run cut short where every
    # thread was asleep is where it could differ.
    "fence_pending_per_iteration": (S, "if (fences_pending_[p].j >= from) {", "if (true) {",
                                    "a fence race waits for its use only in the iteration that found it"),
    "fence_knowing_steps_as_any": (S, "if (!fences_pending_.empty() && sl.knows)\n", "if (false)\n",
                                   "a step that knows counts only the steps nothing but the fences order before it"),
    "fence_forced_load_not_knowing": (S, "s.knows = step_.var || (step_.reads_plain() && !load_choice_);", "s.knows = step_.var;",
                                      "a load with no choice of store does not know (its older store may be ruled out)"),
    # Not caught by 600 fenced programs of each family: a variable's race hidden by the fences'
    # order showed, in every program tried, in another order of the steps that order it (the
    # search then fails the same way); a program whose blocking rules those orders out is not
    # written yet.
    "fence_var_not_knowing": (S, "s.knows = step_.var || (step_.reads_plain() && !load_choice_);",
                              "s.knows = step_.reads_plain() && !load_choice_;",
                              "a variable's access does not know (its data race may be hidden)"),
    "fence_plain_order_has_fences": (S, "if (conflict(steps_[k], sl, false) != Conflict::none) join(pl, k, plain_clocks_);",
                                     "if (conflict(steps_[k], sl) != Conflict::none) join(pl, k, plain_clocks_);",
                                     "the order without the fences' keeps the fences' order (a step ordered only through them looks ordered)"),
}


def build(tree, out):
    cmd = ["g++", "-std=c++17", "-O1", "-w", "-I" + tree, "-DVMAVERIFY_LITMUS=\"%s\"" % os.path.join(tree, "tests/reduction/litmus")]
    cmd += [os.path.join(tree, s) for s in SOURCES] + ["-lgtest", "-lgtest_main", "-pthread", "-o", out]
    return subprocess.run(cmd, capture_output=True, text=True)


def run(binary, programs, timeout):
    env = dict(os.environ, VMAVERIFY_RANDOM_PROGRAMS=str(programs), VMAVERIFY_RANDOM_CPU_PROGRAMS=str(programs),
               VMAVERIFY_RANDOM_FENCED_PROGRAMS=str(programs))
    try:
        p = subprocess.run([binary], capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    failed = set(re.findall(r"^\[  FAILED  \] ([A-Za-z][\w/.]*)", p.stdout, re.M))
    # A run that died (a crash, an abort) failed whatever test was running.
    if not failed and p.returncode != 0:
        running = re.findall(r"^\[ RUN      \] ([A-Za-z][\w/.]*)", p.stdout, re.M)
        failed = {"%s (the tests died: exit status %d)" % (running[-1] if running else "the test binary", p.returncode)}
    # Litmus files by their name, the rest by test
    return sorted(f.replace("Files/Litmus.EverySearchReachesExactlyTheExpectedOutcomes/", "litmus ") for f in failed)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", type=int, default=2000, help="random programs per bug (default 2000)")
    ap.add_argument("--only", help="one bug by name")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per bug's test run (default 600)")
    ap.add_argument("--check", action="store_true",
                    help="only check that each bug's text is in its file exactly once (a test: a change to the "
                         "engine must not leave a seed that no longer applies)")
    args = ap.parse_args()
    if args.check:
        stale = [name for name, (path, text, _, _) in BUGS.items()
                 if open(os.path.join(ROOT, path)).read().count(text) != 1]
        for name in stale:
            print("seeded_bugs: the text of %s is not in %s exactly once" % (name, BUGS[name][0]))
        print("%d of %d seeded bugs apply" % (len(BUGS) - len(stale), len(BUGS)))
        sys.exit(1 if stale else 0)
    bugs = {k: v for k, v in BUGS.items() if not args.only or k == args.only}
    if not bugs:
        sys.exit("seeded_bugs: no bug named %s" % args.only)
    missed = 0
    with tempfile.TemporaryDirectory(prefix="seeded-bugs-") as work:
        tree = os.path.join(work, "src")
        for d in ("model", "verify", "tests/reduction"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(tree, d))
        for name, (path, text, replacement, what) in bugs.items():
            target = os.path.join(tree, path)
            original = open(target).read()
            if original.count(text) != 1:
                print("%-34s SEED FAILED: the text is not in %s exactly once" % (name, path))
                missed += 1
                continue
            open(target, "w").write(original.replace(text, replacement))
            binary = os.path.join(work, "engine_tests")
            b = build(tree, binary)
            open(target, "w").write(original)
            if b.returncode != 0:
                print("%-34s DOES NOT BUILD: %s" % (name, b.stderr.strip().splitlines()[:1]))
                missed += 1
                continue
            failed = run(binary, args.programs, args.timeout)
            if failed is None:
                verdict = "caught (the tests did not end within %d s)" % args.timeout
            elif failed:
                verdict = "caught by " + ", ".join(failed)
            else:
                verdict = "MISSED"
                missed += 1
            print("%-34s %s\n%36s(%s)" % (name, verdict, "", what), flush=True)
    print("%d of %d seeded bugs caught" % (len(bugs) - missed, len(bugs)))
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
