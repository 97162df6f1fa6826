; Bounded count: 0 <= count <= 8 at every step, so vmas[count] is never written past the array.
(assert (and (<= 0 count) (<= count 8)))
