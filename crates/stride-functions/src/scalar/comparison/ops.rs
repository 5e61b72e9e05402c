//! The six comparison operators as zero-sized types, so one generic kernel is
//! monomorphized per operator and per value type with no branch on the operator.

use crate::kernels::SqlOrd;
use std::cmp::Ordering;

pub(super) trait CmpOp {
    /// For `=` and `<>`: the result when the values are equal; lets string kernels
    /// use the cheaper equality test. `None` for the ordering operators.
    const EQUALITY: Option<bool>;
    fn cmp<T: SqlOrd>(a: T, b: T) -> bool;
    fn ord(o: Ordering) -> bool;
}

pub(super) struct EqOp;
pub(super) struct NeOp;
pub(super) struct LtOp;
pub(super) struct LeOp;
pub(super) struct GtOp;
pub(super) struct GeOp;

impl CmpOp for EqOp {
    const EQUALITY: Option<bool> = Some(true);
    #[inline]
    fn cmp<T: SqlOrd>(a: T, b: T) -> bool {
        a.sql_eq(b)
    }
    #[inline]
    fn ord(o: Ordering) -> bool {
        o.is_eq()
    }
}

impl CmpOp for NeOp {
    const EQUALITY: Option<bool> = Some(false);
    #[inline]
    fn cmp<T: SqlOrd>(a: T, b: T) -> bool {
        !a.sql_eq(b)
    }
    #[inline]
    fn ord(o: Ordering) -> bool {
        o.is_ne()
    }
}

// sql_lt is a total order, so the other operators derive from it exactly
impl CmpOp for LtOp {
    const EQUALITY: Option<bool> = None;
    #[inline]
    fn cmp<T: SqlOrd>(a: T, b: T) -> bool {
        a.sql_lt(b)
    }
    #[inline]
    fn ord(o: Ordering) -> bool {
        o.is_lt()
    }
}

impl CmpOp for LeOp {
    const EQUALITY: Option<bool> = None;
    #[inline]
    fn cmp<T: SqlOrd>(a: T, b: T) -> bool {
        !b.sql_lt(a)
    }
    #[inline]
    fn ord(o: Ordering) -> bool {
        o.is_le()
    }
}

impl CmpOp for GtOp {
    const EQUALITY: Option<bool> = None;
    #[inline]
    fn cmp<T: SqlOrd>(a: T, b: T) -> bool {
        b.sql_lt(a)
    }
    #[inline]
    fn ord(o: Ordering) -> bool {
        o.is_gt()
    }
}

impl CmpOp for GeOp {
    const EQUALITY: Option<bool> = None;
    #[inline]
    fn cmp<T: SqlOrd>(a: T, b: T) -> bool {
        !a.sql_lt(b)
    }
    #[inline]
    fn ord(o: Ordering) -> bool {
        o.is_ge()
    }
}
