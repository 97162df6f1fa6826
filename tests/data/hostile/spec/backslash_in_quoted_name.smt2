; Z3 reads \| inside a quoted symbol as an escape, SMT-LIB 2.6 does not.
(define-fun |a\|| () Bool true)
(declare-fun k () Int)
(assert true)
