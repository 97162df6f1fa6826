(assert (= |count count))
