//! `date_part([part, ...], x)` (`datepart`): several parts of a DATE, TIMESTAMP, TIME
//! or INTERVAL at once, as a STRUCT with one field per part, named as the part was
//! written and typed as `date_part` types that part (BIGINT, DOUBLE for `epoch` and
//! `julian`). The list must be a constant of distinct names (compared without case);
//! its fields are fixed when the call is bound ([`specialize`]). A NULL value gives a
//! NULL struct.

use super::field::DateField;
use super::part::{extract, time_or_temporal_arg};
use crate::kernels::null_vector;
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::vector::StructData;
use stride_common::{DataType, Error, Interval, Result, ScalarValue, Vector, VectorData};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let [DataType::List(inner), x] = args else {
        return None;
    };
    if !matches!(**inner, DataType::Varchar | DataType::Null) {
        return None;
    }
    let x = time_or_temporal_arg(x)?;
    // the struct's fields are known once the list's value is (specialize)
    bind(
        ScalarFunction::DatePartList,
        vec![DataType::List(Box::new(DataType::Varchar)), x],
        DataType::Struct(Vec::new()),
    )
}

fn binder_error(message: &str) -> Error {
    Error::binder(format!("{message} in \"date_part\""))
}

/// Fixes the struct's fields from the constant list of part names, checking each
/// part applies to the value's type.
pub(crate) fn specialize(f: &mut BoundFunction, constants: &[Option<ScalarValue>]) -> Result<()> {
    let items = match constants.first() {
        Some(Some(ScalarValue::List(_, items))) => items,
        Some(Some(_)) => return Ok(()),
        _ => return Err(Error::binder(
            "The \"part_list\" argument in function \"date_part\" must be a constant expression",
        )),
    };
    if items.is_empty() {
        return Err(Error::binder(
            "\"date_part\" requires non-empty lists of part names",
        ));
    }
    let mut fields: Vec<(String, DataType)> = Vec::with_capacity(items.len());
    for item in items {
        let ScalarValue::Varchar(name) = item else {
            return Err(binder_error("NULL struct entry name"));
        };
        if fields.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            return Err(binder_error(&format!(
                "Duplicate struct entry name \"{name}\""
            )));
        }
        let field = DateField::parse(name)?;
        match f.arg_types[1] {
            DataType::Time => field.of_time(0).map(|_| ())?,
            DataType::Interval if field.is_fractional() => field
                .fractional_of_interval(Interval::default())
                .map(|_| ())?,
            DataType::Interval => field.of_interval(Interval::default()).map(|_| ())?,
            _ => {}
        }
        let ty = if field.is_fractional() {
            DataType::Double
        } else {
            DataType::BigInt
        };
        fields.push((name.clone(), ty));
    }
    f.return_type = DataType::Struct(fields);
    Ok(())
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let (parts, v) = (&args[0], &args[1]);
    let DataType::Struct(fields) = &f.return_type else {
        return Err(Error::internal(
            "date_part over a list bound without a STRUCT",
        ));
    };
    if fields.is_empty() || (parts.constant && !parts.is_valid(0)) {
        return Ok(null_vector(
            &f.return_type,
            len,
            v.constant && parts.constant,
        ));
    }
    if !parts.constant {
        return Err(Error::internal("date_part's list of parts is not constant"));
    }
    let rows = if v.constant { 1 } else { len };
    let columns = fields
        .iter()
        .map(|(name, ty)| {
            let column = extract(DateField::parse(name)?, v, len, ty)?;
            Ok(column.flatten(rows))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut out = Vector::new(
        f.return_type.clone(),
        VectorData::Struct(StructData { fields: columns }),
        v.validity.clone(),
    );
    out.constant = v.constant;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::text_list;
    use crate::scalar::{evaluate_scalar, resolve_scalar, specialize};
    use stride_common::temporal::parse_timestamp;
    use stride_common::{DataType, ScalarValue, ScalarValue::*, Vector};

    fn parts(names: &[&str], x: ScalarValue) -> stride_common::Result<ScalarValue> {
        let list = text_list(names);
        let mut f = resolve_scalar("date_part", &[list.data_type(), x.data_type()])?;
        specialize(&mut f, &[Some(list.clone()), Some(x.clone())])?;
        let args = [
            Vector::constant(&list, &list.data_type())?,
            Vector::constant(&x, &x.data_type())?,
        ];
        Ok(evaluate_scalar(&f, &args, 1)?.get(0))
    }

    #[test]
    fn a_struct_of_parts() {
        let t = Timestamp(parse_timestamp("2024-03-05 10:11:12.5").unwrap());
        let got = parts(&["year", "Month", "epoch"], t).unwrap();
        let fields = vec![
            ("year".to_string(), DataType::BigInt),
            ("Month".to_string(), DataType::BigInt),
            ("epoch".to_string(), DataType::Double),
        ];
        assert_eq!(
            got,
            Struct(fields, vec![BigInt(2024), BigInt(3), Double(1709633472.5)])
        );
        let e = parts(&["year", "YEAR"], Date(0)).unwrap_err();
        assert_eq!(
            e.message,
            "Duplicate struct entry name \"YEAR\" in \"date_part\""
        );
        let e = parts(&[], Date(0)).unwrap_err();
        assert_eq!(
            e.message,
            "\"date_part\" requires non-empty lists of part names"
        );
        assert!(parts(&["year"], Time(0)).is_err());
    }
}
