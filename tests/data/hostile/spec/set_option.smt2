(set-option :timeout 1)
(assert (= count count))
