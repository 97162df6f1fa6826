(|declare-fun| k () Int)
(assert (= k k))
