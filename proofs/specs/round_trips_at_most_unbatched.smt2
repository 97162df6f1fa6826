; mode: trace 16
; Never worse than before the patch: unlink_file_vma took the lock once per file VMA.
; (Recursive helpers take the state as arguments: see lock_round_trips.smt2.)
(define-fun-rec file_vmas ((i Int) (n Int) (seq (Array Int Int)) (vm_file (Array Int Int))) Int
  (ite (>= i n) 0
    (+ (ite (= (select vm_file (select seq i)) 0) 0 1) (file_vmas (+ i 1) n seq vm_file))))
(assert (<= lock_round_trips (file_vmas 0 n seq vm_file)))

; After each add: the round trips taken, plus the open batch's, never exceed the file VMAs seen.
(define-fun prefix_invariant () Bool
  (and (<= 0 count 8)
       (<= (+ lock_round_trips (ite (> count 0) 1 0)) (file_vmas 0 n seq vm_file))))
