count
(assert (= count count))
