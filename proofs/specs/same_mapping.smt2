; Same mapping: every batched VMA has vmas[0]'s vm_file, hence (f_mapping being a
; function of the file) the mapping whose lock process takes.
(define-fun batched ((i Int)) Bool (and (<= 0 i) (< i count)))
(define-fun file_of ((i Int)) Int (select vm_file (select vmas i)))
(assert (forall ((i Int))
  (=> (batched i)
      (and (= (file_of i) (file_of 0))
           (= (select f_mapping (file_of i)) (select f_mapping (file_of 0)))))))
