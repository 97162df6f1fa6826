; The semicolon inside the quoted name is no comment: the declaration after it is seen.
(define-fun |a;| () Bool true)
(declare-const k Int)
(assert (=> |a;| (= k k)))
