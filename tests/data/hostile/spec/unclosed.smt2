(assert (= count count)
