//! Python values in and out: query parameters become [`ScalarValue`]s, result values
//! become the Python objects DuckDB's package returns (int, float, Decimal, str, bool,
//! None, date, datetime, time, timedelta, uuid.UUID, list). A TIMESTAMP WITH TIME ZONE
//! leaves as an aware datetime in the session's zone (a `zoneinfo.ZoneInfo`), as
//! DuckDB's package returns it; an aware datetime parameter is one. A TIME WITH TIME
//! ZONE is a time with a fixed-offset tzinfo, both ways; TIMESTAMP_S, _MS and _NS
//! leave as datetime (nanoseconds cut off).
//!
//! The row-by-row path (`fetchall` and friends) goes through here; bulk results
//! leave through Arrow instead (see `stream.rs`).

use crate::errors::{NotImplementedException, ProgrammingError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use stride_common::scalar::format_decimal;
use stride_common::temporal::{civil_from_days, days_from_civil};
use stride_common::types::DECIMAL_MAX_PRECISION;
use stride_common::{DataType, Interval, ScalarValue};

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// The Python classes results are built from, looked up once per fetch.
pub struct ToPython<'py> {
    date: Bound<'py, PyAny>,
    datetime: Bound<'py, PyAny>,
    timedelta: Bound<'py, PyAny>,
    time: Bound<'py, PyAny>,
    decimal: Bound<'py, PyAny>,
    uuid: Bound<'py, PyAny>,
    /// The session's time zone, TIMESTAMPTZ values are shown in
    zone: stride_common::zone::SessionZone,
    /// `datetime.timezone.utc` and `zone` as a `zoneinfo.ZoneInfo`, looked up at the
    /// first TIMESTAMPTZ value
    zones: std::cell::OnceCell<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
}

impl<'py> ToPython<'py> {
    /// The converter for results of a session whose time zone is `zone`.
    pub fn new(py: Python<'py>, zone: stride_common::zone::SessionZone) -> PyResult<Self> {
        let dt = py.import("datetime")?;
        Ok(ToPython {
            date: dt.getattr("date")?,
            datetime: dt.getattr("datetime")?,
            timedelta: dt.getattr("timedelta")?,
            time: dt.getattr("time")?,
            decimal: py.import("decimal")?.getattr("Decimal")?,
            uuid: py.import("uuid")?.getattr("UUID")?,
            zone,
            zones: std::cell::OnceCell::new(),
        })
    }

    /// `datetime.timezone.utc` and the session's zone.
    fn zones(&self) -> PyResult<&(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        if let Some(z) = self.zones.get() {
            return Ok(z);
        }
        let py = self.date.py();
        let utc = py.import("datetime")?.getattr("timezone")?.getattr("utc")?;
        let name = self.zone.name().to_string();
        let zone = py.import("zoneinfo")?.getattr("ZoneInfo")?.call1((name,))?;
        Ok(self.zones.get_or_init(|| (utc, zone)))
    }

    /// A naive datetime of microseconds since 1970-01-01 00:00:00.
    fn naive(&self, t: i64) -> PyResult<Bound<'py, PyAny>> {
        // as DuckDB's package: the infinite timestamps are datetime.max and .min
        match t {
            stride_common::temporal::TIMESTAMP_INFINITY => {
                return self.datetime.call1((9999, 12, 31, 23, 59, 59, 999_999))
            }
            stride_common::temporal::TIMESTAMP_NEG_INFINITY => {
                return self.datetime.call1((1, 1, 1))
            }
            _ => {}
        }
        let days = t.div_euclid(MICROS_PER_DAY);
        let micros = t.rem_euclid(MICROS_PER_DAY);
        let (y, mo, d) = civil_from_days(days);
        let secs = micros / 1_000_000;
        self.datetime.call1((
            y,
            mo,
            d,
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            micros % 1_000_000,
        ))
    }

    pub fn value(&self, v: &ScalarValue) -> PyResult<Bound<'py, PyAny>> {
        let py = self.date.py();
        Ok(match v {
            ScalarValue::Null => py.None().into_bound(py),
            ScalarValue::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
            ScalarValue::TinyInt(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::SmallInt(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::Integer(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::BigInt(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::HugeInt(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::UTinyInt(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::USmallInt(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::UInteger(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::UBigInt(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::UHugeInt(x) => x.into_pyobject(py)?.into_any(),
            ScalarValue::Real(x) => PyFloat::new(py, *x as f64).into_any(),
            ScalarValue::Double(x) => PyFloat::new(py, *x).into_any(),
            ScalarValue::Decimal(x, _, s) => self.decimal.call1((format_decimal(*x, *s),))?,
            ScalarValue::Varchar(s) => PyString::new(py, s).into_any(),
            ScalarValue::Blob(b) => pyo3::types::PyBytes::new(py, b).into_any(),
            // a str of 0s and 1s, as DuckDB's package returns it
            ScalarValue::Bit(_) => PyString::new(py, &v.to_string()).into_any(),
            // an enum is its label, a str (as DuckDB's fetchall gives it)
            ScalarValue::Enum(..) => PyString::new(py, &v.to_string()).into_any(),
            // as DuckDB's package: the infinite dates are date.max and date.min
            ScalarValue::Date(stride_common::temporal::DATE_INFINITY) => {
                self.date.call1((9999, 12, 31))?
            }
            ScalarValue::Date(stride_common::temporal::DATE_NEG_INFINITY) => {
                self.date.call1((1, 1, 1))?
            }
            ScalarValue::Date(d) => {
                let (y, m, d) = civil_from_days(*d as i64);
                self.date.call1((y, m, d))?
            }
            ScalarValue::Timestamp(t) => self.naive(*t)?,
            // datetime holds microseconds: nanoseconds are cut off, as DuckDB's
            // package does
            ScalarValue::TimestampUnit(u, t) => {
                let micros = match u {
                    stride_common::time_unit::TimeUnit::Nanosecond
                        if stride_common::temporal::is_finite_timestamp(*t) =>
                    {
                        Some(t.div_euclid(1_000))
                    }
                    _ => stride_common::time_unit::to_micros(*t, *u),
                };
                let micros = micros.ok_or_else(|| {
                    pyo3::exceptions::PyValueError::new_err(format!(
                        "{v} is outside the range of datetime"
                    ))
                })?;
                self.value(&ScalarValue::Timestamp(micros))?
            }
            ScalarValue::TimestampTz(t) => {
                let (utc, zone) = self.zones()?;
                let kwargs = PyDict::new(py);
                kwargs.set_item("tzinfo", utc)?;
                self.naive(*t)?
                    .call_method("replace", (), Some(&kwargs))?
                    .call_method1("astimezone", (zone,))?
            }
            // datetime.time stops before 24:00:00, which DuckDB's package returns as
            // text.
            ScalarValue::Time(t) if *t >= MICROS_PER_DAY => {
                PyString::new(py, &v.to_string()).into_any()
            }
            ScalarValue::Time(t) => {
                let secs = t / 1_000_000;
                self.time
                    .call1((secs / 3600, secs / 60 % 60, secs % 60, t % 1_000_000))?
            }
            // a datetime.time with a fixed-offset tzinfo, as DuckDB's package gives it
            ScalarValue::TimeTz(x) => {
                let (micros, offset) = stride_common::time_tz::decode(*x);
                let local = self.value(&ScalarValue::Time(micros))?;
                let dt = py.import("datetime")?;
                let delta = dt.getattr("timedelta")?.call1((0, offset))?;
                let zone = dt.getattr("timezone")?.call1((delta,))?;
                let kwargs = PyDict::new(py);
                kwargs.set_item("tzinfo", zone)?;
                match local.call_method("replace", (), Some(&kwargs)) {
                    Ok(t) => t,
                    // 24:00:00 is text (see TIME above)
                    Err(_) => local,
                }
            }
            ScalarValue::Uuid(u) => self.uuid.call1((stride_common::uuid::format(*u),))?,
            // As DuckDB's package does: a month counts as 30 days.
            ScalarValue::Interval(iv) => {
                self.timedelta
                    .call1((iv.months as i64 * 30 + iv.days as i64, 0, iv.micros))?
            }
            ScalarValue::List(_, items) => {
                let items = items
                    .iter()
                    .map(|x| self.value(x))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)?.into_any()
            }
            // As DuckDB's package does: a dict of the entries.
            ScalarValue::Map(_, _, entries) => {
                let dict = PyDict::new(py);
                for (k, x) in entries {
                    dict.set_item(self.value(k)?, self.value(x)?)?;
                }
                dict.into_any()
            }
            // the member's value, without its tag (as DuckDB's package returns it)
            ScalarValue::Union(_, _, x) => self.value(x)?,
            // As DuckDB's package does: a dict, or a tuple when the fields are unnamed.
            ScalarValue::Struct(fields, values) => {
                if fields.iter().all(|(n, _)| n.is_empty()) {
                    let items = values
                        .iter()
                        .map(|x| self.value(x))
                        .collect::<PyResult<Vec<_>>>()?;
                    PyTuple::new(py, items)?.into_any()
                } else {
                    let dict = PyDict::new(py);
                    for ((name, _), x) in fields.iter().zip(values) {
                        dict.set_item(name, self.value(x)?)?;
                    }
                    dict.into_any()
                }
            }
        })
    }

    pub fn row(&self, row: &[ScalarValue]) -> PyResult<Bound<'py, PyTuple>> {
        let items = row
            .iter()
            .map(|x| self.value(x))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(self.date.py(), items)
    }
}

/// Statement parameters from a Python sequence (`?` and `$n` are positional).
pub fn parameters(params: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<ScalarValue>> {
    let Some(params) = params.filter(|p| !p.is_none()) else {
        return Ok(Vec::new());
    };
    if params.is_instance_of::<pyo3::types::PyDict>() {
        return Err(NotImplementedException::new_err(
            "named parameters are not supported yet: use ? or $1, $2, ... and pass a list",
        ));
    }
    if params.is_instance_of::<PyString>() {
        return Err(ProgrammingError::new_err(
            "parameters must be a list or tuple of values, not a string",
        ));
    }
    params
        .try_iter()
        .map_err(|_| ProgrammingError::new_err("parameters must be a list or tuple of values"))?
        .enumerate()
        .map(|(i, v)| value(&v?).map_err(|e| with_position(e, i)))
        .collect()
}

fn with_position(e: PyErr, i: usize) -> PyErr {
    Python::attach(|py| {
        let message = e.value(py).to_string();
        let ty = e.get_type(py);
        PyErr::from_type(ty, format!("parameter ${}: {message}", i + 1))
    })
}

/// One Python value as a SQL value.
pub fn value(v: &Bound<'_, PyAny>) -> PyResult<ScalarValue> {
    let py = v.py();
    if v.is_none() {
        return Ok(ScalarValue::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(ScalarValue::Boolean(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(x) = v.extract::<i64>() {
            return Ok(ScalarValue::BigInt(x));
        }
        // Beyond BIGINT a HUGEINT, beyond that a UHUGEINT, as DuckDB binds them.
        if let Ok(x) = v.extract::<i128>() {
            return Ok(ScalarValue::HugeInt(x));
        }
        return match v.extract::<u128>() {
            Ok(x) => Ok(ScalarValue::UHugeInt(x)),
            _ => Err(stride_err(stride_common::Error::out_of_range(format!(
                "the integer {v} is outside the range of HUGEINT and UHUGEINT (-2^127 to 2^128 - 1)"
            )))),
        };
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(ScalarValue::Double(f.value()));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(ScalarValue::Varchar(s.extract::<String>()?));
    }
    let dt = py.import("datetime")?;
    // datetime before date: a datetime is a date too.
    if v.is_instance(&dt.getattr("datetime")?)? {
        return timestamp(v);
    }
    if v.is_instance(&dt.getattr("date")?)? {
        let (y, m, d): (i64, u32, u32) = (
            v.getattr("year")?.extract()?,
            v.getattr("month")?.extract()?,
            v.getattr("day")?.extract()?,
        );
        return Ok(ScalarValue::Date(days_from_civil(y, m, d) as i32));
    }
    if v.is_instance(&dt.getattr("time")?)? {
        let get = |name: &str| -> PyResult<i64> { v.getattr(name)?.extract() };
        let micros = ((get("hour")? * 60 + get("minute")?) * 60 + get("second")?) * 1_000_000
            + get("microsecond")?;
        // a time with a tzinfo is a TIME WITH TIME ZONE at its UTC offset
        let offset = v.call_method0("utcoffset")?;
        if offset.is_none() {
            return Ok(ScalarValue::Time(micros));
        }
        let seconds: f64 = offset.call_method0("total_seconds")?.extract()?;
        if seconds.fract() != 0.0 || seconds.abs() > stride_common::time_tz::MAX_OFFSET as f64 {
            return Err(NotImplementedException::new_err(format!(
                "a time's UTC offset must be whole seconds within 15:59:59, not {seconds} s"
            )));
        }
        return Ok(ScalarValue::TimeTz(stride_common::time_tz::encode(
            micros,
            seconds as i32,
        )));
    }
    if v.is_instance(&dt.getattr("timedelta")?)? {
        let days: i64 = v.getattr("days")?.extract()?;
        let secs: i64 = v.getattr("seconds")?.extract()?;
        let micros: i64 = v.getattr("microseconds")?.extract()?;
        let days =
            i32::try_from(days).map_err(|_| ProgrammingError::new_err("timedelta too large"))?;
        return Ok(ScalarValue::Interval(Interval {
            months: 0,
            days,
            micros: secs * 1_000_000 + micros,
        }));
    }
    if v.is_instance(&py.import("decimal")?.getattr("Decimal")?)? {
        return decimal(v);
    }
    if v.is_instance(&py.import("uuid")?.getattr("UUID")?)? {
        let bits: u128 = v.getattr("int")?.extract()?;
        return Ok(ScalarValue::Uuid(bits));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        return list(v);
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return struct_value(d);
    }
    if let Ok(b) = v.cast::<pyo3::types::PyBytes>() {
        return Ok(ScalarValue::Blob(b.as_bytes().to_vec()));
    }
    if let Ok(b) = v.cast::<pyo3::types::PyByteArray>() {
        return Ok(ScalarValue::Blob(b.to_vec()));
    }
    let type_name = v.get_type().name()?.to_string();
    if type_name == "memoryview" {
        let bytes = py.import("builtins")?.getattr("bytes")?.call1((v,))?;
        return Ok(ScalarValue::Blob(
            bytes.cast::<pyo3::types::PyBytes>()?.as_bytes().to_vec(),
        ));
    }
    Err(NotImplementedException::new_err(format!(
        "a Python value of type {type_name} cannot be a SQL parameter"
    )))
}

fn stride_err(e: stride_common::Error) -> PyErr {
    crate::errors::to_py(e)
}

/// A datetime as a TIMESTAMP; one with a time zone (aware) as the instant it names, a
/// TIMESTAMP WITH TIME ZONE.
fn timestamp(v: &Bound<'_, PyAny>) -> PyResult<ScalarValue> {
    let mut v = v.clone();
    let aware = !v.getattr("tzinfo")?.is_none();
    if aware {
        let utc = v
            .py()
            .import("datetime")?
            .getattr("timezone")?
            .getattr("utc")?;
        v = v
            .call_method1("astimezone", (utc,))?
            .call_method1("replace", ())?;
        let kwargs = pyo3::types::PyDict::new(v.py());
        kwargs.set_item("tzinfo", v.py().None())?;
        v = v.call_method("replace", (), Some(&kwargs))?;
    }
    let get = |name: &str| -> PyResult<i64> { v.getattr(name)?.extract() };
    let days = days_from_civil(get("year")?, get("month")? as u32, get("day")? as u32);
    let micros = ((get("hour")? * 60 + get("minute")?) * 60 + get("second")?) * 1_000_000
        + get("microsecond")?;
    let t = days * MICROS_PER_DAY + micros;
    Ok(if aware {
        ScalarValue::TimestampTz(t)
    } else {
        ScalarValue::Timestamp(t)
    })
}

/// A `decimal.Decimal` as a DECIMAL with its own digits and scale.
fn decimal(v: &Bound<'_, PyAny>) -> PyResult<ScalarValue> {
    let (sign, digit_tuple, exponent): (i64, Vec<u8>, Bound<'_, PyAny>) =
        v.call_method0("as_tuple")?.extract()?;
    let Ok(exponent) = exponent.extract::<i64>() else {
        return Err(stride_err(stride_common::Error::conversion(format!(
            "the Decimal {v} (infinite or NaN) has no SQL DECIMAL value"
        ))));
    };
    let mut digit_list = digit_tuple;
    if exponent > 0 {
        digit_list.extend(std::iter::repeat_n(0, exponent as usize));
    }
    let scale = (-exponent).max(0) as usize;
    let precision = digit_list.len().max(scale).max(1);
    if precision > DECIMAL_MAX_PRECISION as usize {
        return Err(stride_err(stride_common::Error::out_of_range(format!(
            "the Decimal {v} has more than {DECIMAL_MAX_PRECISION} digits"
        ))));
    }
    let mut x: i128 = 0;
    for d in digit_list {
        x = x * 10 + d as i128;
    }
    if sign == 1 {
        x = -x;
    }
    Ok(ScalarValue::Decimal(x, precision as u8, scale as u8))
}

/// A dict with string keys as a STRUCT of those fields (as DuckDB's package binds
/// one); a NULL value's field is INTEGER.
fn struct_value(d: &Bound<'_, PyDict>) -> PyResult<ScalarValue> {
    if d.is_empty() {
        return Err(ProgrammingError::new_err(
            "an empty dict cannot be a STRUCT parameter: a STRUCT needs at least one field",
        ));
    }
    let mut fields = Vec::with_capacity(d.len());
    let mut values = Vec::with_capacity(d.len());
    for (k, x) in d.iter() {
        let Ok(name) = k.extract::<String>() else {
            return Err(NotImplementedException::new_err(
                "a dict parameter needs string keys (it becomes a STRUCT); MAP values are not supported yet",
            ));
        };
        let x = value(&x)?;
        let ty = match x.data_type() {
            DataType::Null => DataType::Integer,
            t => t,
        };
        fields.push((name, ty));
        values.push(x);
    }
    Ok(ScalarValue::Struct(fields, values))
}

/// A list or tuple as a LIST whose element type is that of its first non-NULL
/// element; integers and floats mixed become DOUBLE.
fn list(v: &Bound<'_, PyAny>) -> PyResult<ScalarValue> {
    let items = v
        .try_iter()?
        .map(|x| value(&x?))
        .collect::<PyResult<Vec<_>>>()?;
    let types: Vec<DataType> = items
        .iter()
        .filter(|x| !x.is_null())
        .map(|x| x.data_type())
        .collect();
    let Some(first) = types.first().cloned() else {
        return Ok(ScalarValue::List(DataType::Integer, items));
    };
    let ty = if types.iter().all(|t| *t == first) {
        first
    } else if types.iter().all(|t| t.is_numeric()) {
        DataType::Double
    } else {
        return Err(ProgrammingError::new_err(
            "a list parameter mixes values of different types",
        ));
    };
    let items = items
        .into_iter()
        .map(|x| match x.as_f64() {
            Some(f) if x.data_type() != ty => ScalarValue::Double(f),
            _ => x,
        })
        .collect();
    Ok(ScalarValue::List(ty, items))
}
