//! The six comparison operators, where code names one rather than evaluating it:
//! a column compared with a constant as the planner hands it to a scan's zone maps
//! (`stride_storage::zone_map`) or to an external source (`stride_io::external`),
//! and a quantified `x op ANY/ALL (list)`.

use std::cmp::Ordering;

/// `a <op> b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl CompareOp {
    /// The operator with its operands swapped (`5 < x` is `x > 5`).
    pub fn flip(self) -> CompareOp {
        match self {
            CompareOp::Lt => CompareOp::Gt,
            CompareOp::LtEq => CompareOp::GtEq,
            CompareOp::Gt => CompareOp::Lt,
            CompareOp::GtEq => CompareOp::LtEq,
            other => other,
        }
    }

    /// The operator as SQL writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::NotEq => "<>",
            CompareOp::Lt => "<",
            CompareOp::LtEq => "<=",
            CompareOp::Gt => ">",
            CompareOp::GtEq => ">=",
        }
    }

    /// The operator SQL writes as `op` (`!=` is `<>`).
    pub fn from_operator(op: &str) -> Option<CompareOp> {
        Some(match op {
            "=" => CompareOp::Eq,
            "<>" | "!=" => CompareOp::NotEq,
            "<" => CompareOp::Lt,
            "<=" => CompareOp::LtEq,
            ">" => CompareOp::Gt,
            ">=" => CompareOp::GtEq,
            _ => return None,
        })
    }

    /// Whether `a <op> b` holds, given how `a` orders against `b`.
    pub fn holds(self, o: Ordering) -> bool {
        match self {
            CompareOp::Eq => o == Ordering::Equal,
            CompareOp::NotEq => o != Ordering::Equal,
            CompareOp::Lt => o == Ordering::Less,
            CompareOp::LtEq => o != Ordering::Greater,
            CompareOp::Gt => o == Ordering::Greater,
            CompareOp::GtEq => o != Ordering::Less,
        }
    }
}
