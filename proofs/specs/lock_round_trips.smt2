; mode: trace 16
; Lock round trips: a teardown takes i_mmap_rwsem exactly once per maximal run of
; consecutive same-file VMAs (anonymous VMAs, which the batch skips, do not end a run),
; each run split every 8 VMAs. Checked after init, add(seq[0]) ... add(seq[n-1]), final
; for every n <= 16 and every layout, and for every n by induction through the
; prefix_invariant below (see proofs/README.md).
;
; Helpers are functions of a position only (a recursion whose arguments differ between
; branches makes Z3 split cases exponentially) and take the state as arguments (Z3 4.8
; does not unfold a recursive function whose body reads a free constant).
(define-fun file_at ((i Int) (seq (Array Int Int)) (vm_file (Array Int Int))) Int
  (select vm_file (select seq i)))
; The file of the last file VMA before position i, 0 if none.
(define-fun-rec file_before ((i Int) (seq (Array Int Int)) (vm_file (Array Int Int))) Int
  (ite (<= i 0) 0
    (ite (= (file_at (- i 1) seq vm_file) 0)
      (file_before (- i 1) seq vm_file)
      (file_at (- i 1) seq vm_file))))
; Position of the last file VMA up to i in its chunk: 1..8, counting from its run's start
; and restarting after 8 (anonymous positions carry the value before them).
(define-fun-rec in_chunk ((i Int) (seq (Array Int Int)) (vm_file (Array Int Int))) Int
  (ite (< i 0) 0
    (ite (= (file_at i seq vm_file) 0)
      (in_chunk (- i 1) seq vm_file)
      (ite (and (= (file_at i seq vm_file) (file_before i seq vm_file)) (< (in_chunk (- i 1) seq vm_file) 8))
        (+ (in_chunk (- i 1) seq vm_file) 1)
        1))))
; Chunks started at positions before i.
(define-fun-rec chunks ((i Int) (seq (Array Int Int)) (vm_file (Array Int Int))) Int
  (ite (<= i 0) 0
    (+ (chunks (- i 1) seq vm_file)
       (ite (and (not (= (file_at (- i 1) seq vm_file) 0)) (= (in_chunk (- i 1) seq vm_file) 1)) 1 0))))
(assert (= lock_round_trips (chunks n seq vm_file)))

; After init and each add (n = VMAs added so far), before final: the lock is taken once per
; chunk started, but for the open one; the batch is that chunk, ending at the last file VMA.
(define-fun prefix_invariant () Bool
  (and (<= 0 count 8)
       (= (+ lock_round_trips (ite (> count 0) 1 0)) (chunks n seq vm_file))
       (= (= count 0) (= (file_before n seq vm_file) 0))
       (=> (> count 0)
           (and (= (select vm_file (select vmas 0)) (file_before n seq vm_file))
                (= count (in_chunk (- n 1) seq vm_file))))))
