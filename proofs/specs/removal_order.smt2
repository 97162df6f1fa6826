; assumes: count_bounded exactly_once
; Removal order equals add order: the k-th VMA removed is the k-th VMA appended to the
; batch (ghost numbering: append_seq / remove_seq, counters appends / removals).
;
; Inductive strengthening: every appended VMA not yet removed is in the batch, in append
; order, at the end of the numbering; a VMA never added has never been removed.
(assert (and
  (forall ((v Int)) (=> (> (select remove_seq v) 0) (= (select remove_seq v) (select append_seq v))))
  (= removals (- appends count))
  (forall ((i Int))
    (=> (and (<= 0 i) (< i count)) (= (select append_seq (select vmas i)) (+ (- appends count) i 1))))
  (forall ((v Int)) (=> (= (select added v) 0) (= (select remove_seq v) 0)))))
