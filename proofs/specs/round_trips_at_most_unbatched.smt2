; mode: trace 16
; Never worse than before the patch: unlink_file_vma took the lock once per file VMA.
(define-fun-rec file_vmas ((i Int)) Int
  (ite (>= i n) 0 (+ (ite (= (select vm_file (select seq i)) 0) 0 1) (file_vmas (+ i 1)))))
(assert (<= lock_round_trips (file_vmas 0)))
