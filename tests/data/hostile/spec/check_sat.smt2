(assert (= count count))
(check-sat)
