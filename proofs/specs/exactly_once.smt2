; assumes: count_bounded
; Exactly once: after final, every file VMA that was added has been removed from its
; mapping's tree exactly once, no anonymous VMA was ever removed, and none is left behind.
;
; Stated at every step: a VMA has been removed once if it is a file VMA that was added and
; has left the batch, never otherwise; after final the batch is empty, which gives the
; property. The last two conjuncts make it inductive: what the batch holds was added, is
; file-backed, and appears once.
(define-fun file_added ((v Int)) Bool (and (> (select added v) 0) (not (= (select vm_file v) 0))))
; count <= 8 (count_bounded), so these eight slots are the whole batch.
(define-fun slot ((i Int) (v Int)) Bool (and (< i count) (= (select vmas i) v)))
(define-fun in_batch ((v Int)) Bool
  (or (slot 0 v) (slot 1 v) (slot 2 v) (slot 3 v) (slot 4 v) (slot 5 v) (slot 6 v) (slot 7 v)))
(assert (and
  (=> finalized (= count 0))
  (forall ((v Int)) (= (select removed v) (ite (and (file_added v) (not (in_batch v))) 1 0)))
  (forall ((i Int)) (=> (and (<= 0 i) (< i count)) (file_added (select vmas i))))
  (forall ((i Int) (j Int))
    (=> (and (<= 0 i) (< i j) (< j count)) (not (= (select vmas i) (select vmas j)))))))
