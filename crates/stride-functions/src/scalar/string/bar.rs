//! `bar(x, min, max [, width])`: a horizontal bar of Unicode block characters whose
//! length is `width` (default 80) scaled by where `x` lies between `min` and `max`,
//! padded with spaces to `width` characters. Eighths of a block are drawn with the
//! partial block characters. DuckDB's rendering and errors.

use crate::kernels::{map_rows_to_strings, Slot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let n = args.len();
    if !(3..=4).contains(&n) {
        return None;
    }
    fixed(
        ScalarFunction::Bar,
        args,
        &vec![DataType::Double; n],
        DataType::Varchar,
    )
}

const PARTIAL: [&str; 8] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

fn bar(x: f64, min: f64, max: f64, max_width: f64, out: &mut String) -> Result<()> {
    if !max_width.is_finite() {
        return Err(Error::out_of_range(
            "Max bar width must not be NaN or infinity",
        ));
    }
    if max_width < 1.0 {
        return Err(Error::out_of_range("Max bar width must be >= 1"));
    }
    if max_width > 1000.0 {
        return Err(Error::out_of_range("Max bar width must be <= 1000"));
    }
    let width = if x.is_nan() || min.is_nan() || max.is_nan() || x <= min {
        0.0
    } else if x >= max {
        max_width
    } else {
        max_width * (x - min) / (max - min)
    };
    if !width.is_finite() {
        return Err(Error::out_of_range("Bar width must not be NaN or infinity"));
    }
    let eighths = (width * 8.0) as usize;
    let mut used = eighths / 8;
    for _ in 0..used {
        out.push('█');
    }
    if eighths & 7 != 0 {
        used += 1;
        out.push_str(PARTIAL[eighths % 8]);
    }
    for _ in used..max_width as usize {
        out.push(' ');
    }
    Ok(())
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let (x, min, max) = (
        Slot::<f64>::new(&args[0]),
        Slot::<f64>::new(&args[1]),
        Slot::<f64>::new(&args[2]),
    );
    let width = args.get(3).map(Slot::<f64>::new);
    let mut buf = String::new();
    map_rows_to_strings(&refs, len, |i, out| {
        buf.clear();
        let w = width.map_or(80.0, |w| w.get(i));
        bar(x.get(i), min.get(i), max.get(i), w, &mut buf)?;
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::{self, *};

    fn b(args: &[f64]) -> ScalarValue {
        let a: Vec<ScalarValue> = args.iter().map(|x| Double(*x)).collect();
        eval("bar", &a).unwrap()
    }

    #[test]
    fn bars() {
        let s = |x: &str| Varchar(x.into());
        assert_eq!(b(&[5.0, 0.0, 10.0, 20.0]), s("██████████          "));
        assert_eq!(b(&[3.3, 0.0, 10.0, 10.0]), s("███▎      "));
        assert_eq!(b(&[11.0, 0.0, 10.0, 10.0]), s("██████████"));
        assert_eq!(b(&[-1.0, 0.0, 10.0, 3.0]), s("   "));
        assert_eq!(b(&[f64::NAN, 0.0, 10.0, 2.0]), s("  "));
        match b(&[5.0, 0.0, 10.0]) {
            Varchar(x) => assert_eq!(x.chars().count(), 80),
            other => panic!("{other:?}"),
        }
        let e = eval(
            "bar",
            &[Double(5.0), Double(0.0), Double(10.0), Double(0.0)],
        )
        .unwrap_err();
        assert_eq!(e.message, "Max bar width must be >= 1");
        assert_eq!(
            eval("bar", &[Null, Double(0.0), Double(1.0)]).unwrap(),
            Null
        );
    }
}
