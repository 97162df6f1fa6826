; mode: trace 999
(assert (= count count))
