(push)
(assert false)
(pop)
(assert (= count count))
