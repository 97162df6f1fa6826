; mode: trace 16
; Never worse than before the patch: unlink_file_vma took the lock once per file VMA, so a
; teardown takes it at most as often as it meets file VMAs.
;
; File VMAs among seq[0..i). Recursive helpers take the state as arguments and recurse on
; the prefix end: see lock_round_trips.smt2.
(define-fun-rec file_vmas ((i Int) (seq (Array Int Int)) (vm_file (Array Int Int))) Int
  (ite (<= i 0) 0
    (+ (file_vmas (- i 1) seq vm_file) (ite (= (select vm_file (select seq (- i 1))) 0) 0 1))))
(assert (<= lock_round_trips (file_vmas n seq vm_file)))

; After each add: the round trips taken, plus the open batch's, never exceed the file VMAs seen.
(define-fun prefix_invariant () Bool
  (and (<= 0 count 8)
       (<= (+ lock_round_trips (ite (> count 0) 1 0)) (file_vmas n seq vm_file))))
