//! Traits that let one kernel body serve every width: [`SqlInt`] (checked integer
//! arithmetic and lossless widening), [`SqlFloat`] (REAL and DOUBLE) and [`SqlOrd`]
//! (SQL comparison semantics, which differ from Rust's for floats and intervals).

use std::fmt::Display;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};
use stride_common::vector::NativeType;
use stride_common::Interval;

/// Integer storage: TINYINT..BIGINT and decimal storage (i64, i128).
pub trait SqlInt: NativeType + Ord + Display {
    /// Physical name used in overflow messages ("INT64").
    const NAME: &'static str;
    const ZERO: Self;
    fn checked_add(self, o: Self) -> Option<Self>;
    fn checked_sub(self, o: Self) -> Option<Self>;
    fn checked_mul(self, o: Self) -> Option<Self>;
    /// Truncating division; `None` on zero divisor or MIN / -1.
    fn checked_div(self, o: Self) -> Option<Self>;
    /// Remainder with the dividend's sign; `None` on zero divisor.
    fn checked_rem(self, o: Self) -> Option<Self>;
    fn checked_neg(self) -> Option<Self>;
    fn to_i128(self) -> i128;
    fn from_i128(v: i128) -> Option<Self>;
    fn to_f64(self) -> f64;
}

macro_rules! sql_int {
    ($t:ty, $name:literal) => {
        impl SqlInt for $t {
            const NAME: &'static str = $name;
            const ZERO: Self = 0;
            #[inline]
            fn checked_add(self, o: Self) -> Option<Self> {
                <$t>::checked_add(self, o)
            }
            #[inline]
            fn checked_sub(self, o: Self) -> Option<Self> {
                <$t>::checked_sub(self, o)
            }
            #[inline]
            fn checked_mul(self, o: Self) -> Option<Self> {
                <$t>::checked_mul(self, o)
            }
            #[inline]
            fn checked_div(self, o: Self) -> Option<Self> {
                <$t>::checked_div(self, o)
            }
            #[inline]
            fn checked_rem(self, o: Self) -> Option<Self> {
                if o == 0 {
                    None
                } else {
                    // MIN % -1 is mathematically 0; only the hardware division overflows
                    Some(<$t>::wrapping_rem(self, o))
                }
            }
            #[inline]
            fn checked_neg(self) -> Option<Self> {
                <$t>::checked_neg(self)
            }
            #[inline]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline]
            fn from_i128(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
sql_int!(i8, "INT8");
sql_int!(i16, "INT16");
sql_int!(i32, "INT32");
sql_int!(i64, "INT64");
sql_int!(i128, "INT128");

/// REAL and DOUBLE.
pub trait SqlFloat:
    NativeType
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
{
    const NAME: &'static str;
    const ZERO: Self;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    fn is_finite(self) -> bool;
    fn is_nan(self) -> bool;
    /// The value as text, for messages.
    fn display(self) -> String;
}

impl SqlFloat for f32 {
    const NAME: &'static str = "FLOAT";
    const ZERO: Self = 0.0;
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn display(self) -> String {
        stride_common::scalar::format_f32(self)
    }
}

impl SqlFloat for f64 {
    const NAME: &'static str = "DOUBLE";
    const ZERO: Self = 0.0;
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline]
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn display(self) -> String {
        stride_common::scalar::format_f64(self)
    }
}

/// SQL comparison: floats order NaN above every number and NaN = NaN (PostgreSQL);
/// intervals compare by their normalized length ('1 month' = '30 days').
pub trait SqlOrd: Copy {
    fn sql_eq(self, o: Self) -> bool;
    fn sql_lt(self, o: Self) -> bool;
}

macro_rules! sql_ord_native {
    ($($t:ty),*) => {$(
        impl SqlOrd for $t {
            #[inline]
            fn sql_eq(self, o: Self) -> bool {
                self == o
            }
            #[inline]
            fn sql_lt(self, o: Self) -> bool {
                self < o
            }
        }
    )*};
}
sql_ord_native!(bool, i8, i16, i32, i64, i128);

macro_rules! sql_ord_float {
    ($($t:ty),*) => {$(
        impl SqlOrd for $t {
            #[inline]
            fn sql_eq(self, o: Self) -> bool {
                self == o || (self.is_nan() && o.is_nan())
            }
            #[inline]
            fn sql_lt(self, o: Self) -> bool {
                if self.is_nan() {
                    false
                } else {
                    o.is_nan() || self < o
                }
            }
        }
    )*};
}
sql_ord_float!(f32, f64);

impl SqlOrd for Interval {
    #[inline]
    fn sql_eq(self, o: Self) -> bool {
        self.normalized_micros() == o.normalized_micros()
    }
    #[inline]
    fn sql_lt(self, o: Self) -> bool {
        self.normalized_micros() < o.normalized_micros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_order() {
        assert!(f64::NAN.sql_eq(f64::NAN));
        assert!(1.0f64.sql_lt(f64::NAN));
        assert!(!f64::NAN.sql_lt(1.0));
        assert!(f64::INFINITY.sql_lt(f64::NAN));
        assert!((-0.0f64).sql_eq(0.0));
        assert!(Interval::new(1, 0, 0).sql_eq(Interval::new(0, 30, 0)));
    }

    #[test]
    fn int_ops() {
        assert_eq!(SqlInt::checked_rem(i32::MIN, -1), Some(0));
        assert_eq!(SqlInt::checked_div(i32::MIN, -1), None);
        assert_eq!(SqlInt::checked_rem(-7i64, 2), Some(-1));
        assert_eq!(<i8 as SqlInt>::from_i128(300), None);
    }
}
