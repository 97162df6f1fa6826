(assert (= count count))
(exit)
(assert false)
