(assert (= count count)))
