; (reset) undoes the false assertion: only define-fun, define-fun-rec and assert are allowed.
(assert false)
(reset)
(assert (= count count))
