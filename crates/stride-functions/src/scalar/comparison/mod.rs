//! Comparison operators `= <> < <= > >=`. Resolution casts both sides to their common
//! supertype, so every kernel compares two values of one physical type: fixed-width
//! values through [`SqlOrd`] (NaN above all numbers and equal to itself, intervals by
//! normalized length), strings bytewise (UTF-8 order) using the 4-byte view prefix
//! before touching string bodies, lists and structs element by element. Unions
//! compare by tag, then value; two of one tag whose value is NULL (tagged NULLs)
//! compare as NULL, as in DuckDB.

mod ops;
mod select;
mod strings;

pub use select::{comparison_masks, mask_rows, select_comparison};

use ops::{CmpOp, EqOp, GeOp, GtOp, LeOp, LtOp, NeOp};

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::{binary, map_rows, SqlOrd};
use stride_common::vector::NativeType;
use stride_common::{DataType, Error, PhysicalType, Result, ScalarValue, Vector};

fn resolve(op: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    let t = match DataType::common_supertype(a, b)? {
        // both untyped NULLs: any type compares NULL to NULL
        DataType::Null => DataType::Integer,
        t => t,
    };
    bind(op, vec![t.clone(), t], DataType::Boolean)
}

pub(crate) fn resolve_eq(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Eq, args)
}

pub(crate) fn resolve_not_eq(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::NotEq, args)
}

pub(crate) fn resolve_lt(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Lt, args)
}

pub(crate) fn resolve_lt_eq(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::LtEq, args)
}

pub(crate) fn resolve_gt(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Gt, args)
}

pub(crate) fn resolve_gt_eq(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::GtEq, args)
}

pub(crate) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let [a, b] = args else {
        return Err(Error::internal("comparison with wrong arity"));
    };
    match f.func {
        ScalarFunction::Eq => compare::<EqOp>(a, b, len),
        ScalarFunction::NotEq => compare::<NeOp>(a, b, len),
        ScalarFunction::Lt => compare::<LtOp>(a, b, len),
        ScalarFunction::LtEq => compare::<LeOp>(a, b, len),
        ScalarFunction::Gt => compare::<GtOp>(a, b, len),
        ScalarFunction::GtEq => compare::<GeOp>(a, b, len),
        other => Err(Error::internal(format!("{other:?} is not a comparison"))),
    }
}

fn compare<O: CmpOp>(a: &Vector, b: &Vector, len: usize) -> Result<Vector> {
    match a.ty.physical() {
        PhysicalType::Str => Ok(strings::compare::<O>(a, b, len)),
        PhysicalType::List | PhysicalType::Struct => {
            let mut out = map_rows(&[a, b], len, DataType::Boolean, |i| {
                Ok(O::ord(a.get(i).total_cmp(&b.get(i))))
            })?;
            if matches!(a.ty, DataType::Union(_)) {
                unknown_tagged_nulls(&mut out, a, b);
            }
            Ok(out)
        }
        p => Ok(
            stride_common::with_native!(p, T => fixed::<T, O>(a, b, len),
            _ => unreachable!("strings, lists and structs handled above")),
        ),
    }
}

/// Two unions of one tag compare as their values, so where either value is NULL (a
/// tagged NULL) the comparison is NULL, as in DuckDB; unions of different tags
/// compare by tag even then.
fn unknown_tagged_nulls(out: &mut Vector, a: &Vector, b: &Vector) {
    let n = out.data_len();
    for i in 0..n {
        if let (ScalarValue::Union(_, t, x), ScalarValue::Union(_, u, y)) = (a.get(i), b.get(i)) {
            if t == u && (x.is_null() || y.is_null()) {
                out.validity.set_invalid(i, n);
            }
        }
    }
}

fn fixed<T: NativeType + SqlOrd, O: CmpOp>(a: &Vector, b: &Vector, len: usize) -> Vector {
    binary(a, b, len, DataType::Boolean, |x: T, y: T| O::cmp(x, y))
}

#[cfg(test)]
mod tests {
    use crate::scalar::resolve_scalar;
    use crate::scalar::test_util::{eval, flat};
    use stride_common::{DataType, Interval, ScalarValue, ScalarValue::*, Vector};

    fn all(a: ScalarValue, b: ScalarValue) -> [ScalarValue; 6] {
        ["=", "<>", "<", "<=", ">", ">="].map(|op| eval(op, &[a.clone(), b.clone()]).unwrap())
    }

    fn bools(v: [bool; 6]) -> [ScalarValue; 6] {
        v.map(Boolean)
    }

    #[test]
    fn every_type() {
        let lt = bools([false, true, true, true, false, false]);
        let eq = bools([true, false, false, true, false, true]);
        assert_eq!(all(Integer(1), Integer(2)), lt);
        assert_eq!(all(TinyInt(1), BigInt(2)), lt);
        assert_eq!(all(Integer(2), Decimal(250, 5, 2)), lt);
        assert_eq!(all(Decimal(250, 30, 2), Decimal(2500, 30, 3)), eq);
        assert_eq!(all(Double(1.0), Real(1.0)), eq);
        assert_eq!(all(Boolean(false), Boolean(true)), lt);
        assert_eq!(all(Varchar("abc".into()), Varchar("abd".into())), lt);
        assert_eq!(all(Varchar("ab".into()), Varchar("abc".into())), lt);
        assert_eq!(all(Varchar("".into()), Varchar("a".into())), lt);
        let long = "a rather long string value".to_string();
        assert_eq!(all(Varchar(long.clone()), Varchar(long.clone())), eq);
        assert_eq!(all(Varchar(long.clone() + "a"), Varchar(long + "b")), lt);
        assert_eq!(all(Varchar("Z".into()), Varchar("a".into())), lt);
        assert_eq!(all(Varchar("z".into()), Varchar("é".into())), lt);
        assert_eq!(all(Date(1), Date(2)), lt);
        assert_eq!(all(Date(1), Timestamp(86_400_000_000)), eq);
        assert_eq!(
            all(
                Interval(Interval::new(1, 0, 0)),
                Interval(Interval::new(0, 30, 0))
            ),
            eq
        );
        assert_eq!(
            all(
                Interval(Interval::new(0, 1, 0)),
                Interval(Interval::new(0, 0, 86_400_000_001))
            ),
            lt
        );
        assert_eq!(
            all(Varchar("10".into()), Integer(9)),
            bools([false, true, false, false, true, true])
        );
        let l1 = List(DataType::Integer, vec![Integer(1), Integer(2)]);
        let l2 = List(DataType::Integer, vec![Integer(1), Integer(3)]);
        assert_eq!(all(l1, l2), lt);
    }

    #[test]
    fn nan_and_nulls() {
        let gt = bools([false, true, false, false, true, true]);
        assert_eq!(all(Double(f64::NAN), Double(1e300)), gt);
        assert_eq!(all(Double(f64::NAN), Double(f64::INFINITY)), gt);
        assert_eq!(
            all(Double(f64::NAN), Double(f64::NAN)),
            bools([true, false, false, true, false, true])
        );
        assert_eq!(
            all(Double(-0.0), Double(0.0)),
            bools([true, false, false, true, false, true])
        );
        assert_eq!(all(Integer(1), Null), [Null, Null, Null, Null, Null, Null]);
        assert_eq!(all(Null, Null), [Null, Null, Null, Null, Null, Null]);
    }

    #[test]
    fn vectors_and_constants() {
        let f = resolve_scalar("<", &[DataType::Varchar, DataType::Varchar]).unwrap();
        let names = ["apple", "a much longer banana", "", "cherry"].map(|s| Varchar(s.into()));
        let mut with_null = names.to_vec();
        with_null[3] = Null;
        let a = flat(&DataType::Varchar, &with_null);
        let k = Vector::constant(&Varchar("b".into()), &DataType::Varchar).unwrap();
        let r = crate::evaluate_scalar(&f, &[a.clone(), k.clone()], 4).unwrap();
        let got: Vec<_> = (0..4).map(|i| r.get(i)).collect();
        assert_eq!(got, vec![Boolean(true), Boolean(true), Boolean(true), Null]);
        let r = crate::evaluate_scalar(&f, &[k, a.clone()], 4).unwrap();
        let got: Vec<_> = (0..4).map(|i| r.get(i)).collect();
        assert_eq!(
            got,
            vec![Boolean(false), Boolean(false), Boolean(false), Null]
        );
        let b = flat(&DataType::Varchar, &names);
        let r = crate::evaluate_scalar(&f, &[b.clone(), a], 4).unwrap();
        assert_eq!(r.get(0), Boolean(false));
        assert_eq!(r.get(3), Null);
        let null = Vector::null_constant(&DataType::Varchar);
        let r = crate::evaluate_scalar(&f, &[b, null], 4).unwrap();
        assert_eq!(r.get(2), Null);
    }
}
