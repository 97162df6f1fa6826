; mode: trace 16
; Lock round trips: a teardown takes i_mmap_rwsem exactly once per maximal run of
; consecutive same-file VMAs (anonymous VMAs, which the batch skips, do not end a run),
; each run split every 8 VMAs. Checked after init, add(seq[0]) ... add(seq[n-1]), final
; for every n <= 16 and every layout; proofs/README.md says why that covers every length.
;
; chunks i last run: the chunks of seq[i..n) when the run before i is of file `last`
; and `run` VMAs long (run = 8 means the chunk is full).
(define-fun-rec chunks ((i Int) (last Int) (run Int)) Int
  (ite (>= i n) 0
    (let ((f (select vm_file (select seq i))))
      (ite (= f 0) (chunks (+ i 1) last run)
        (ite (and (= f last) (< run 8))
          (chunks (+ i 1) last (+ run 1))
          (+ 1 (chunks (+ i 1) f 1)))))))
(assert (= lock_round_trips (chunks 0 0 0)))
