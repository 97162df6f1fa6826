; Only file VMAs are batched: process dereferences vmas[i]->vm_file.
(assert (forall ((i Int))
  (=> (and (<= 0 i) (< i count)) (not (= (select vm_file (select vmas i)) 0)))))
