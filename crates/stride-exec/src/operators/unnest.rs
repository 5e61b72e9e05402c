//! The streaming operator behind set-returning functions in a select list
//! (`LogicalPlan::Unnest`): each input row is repeated once per element of its
//! longest list, and one column per list is appended holding the elements (or, for
//! `generate_subscripts`, their 1-based positions) side by side, NULL where a list is
//! shorter. Rows whose lists are all empty or NULL produce nothing, as in PostgreSQL.
//!
//! Where it sits: inside a pipeline, between the FROM/WHERE operators and the select
//! list's projection. The input columns passed on (those read above) are gathered
//! with `take`; element columns are gathered from the lists' child vectors the same
//! way, so no value is copied one at a time unless a shorter list needs NULL padding.

use crate::context::QueryContext;
use crate::expression;
use stride_common::{DataChunk, DataType, Result, Vector, VECTOR_SIZE};
use stride_sql::plan::SetFunction;

/// Expands `chunk` by the lists of `functions`, handing out chunks of at most
/// [`VECTOR_SIZE`] rows that hold the input columns `passed`, then the functions'.
pub fn apply(
    passed: &[usize],
    functions: &[SetFunction],
    chunk: DataChunk,
    ctx: &QueryContext,
    out: &mut dyn FnMut(DataChunk) -> Result<()>,
) -> Result<()> {
    let chunk = chunk.flatten();
    let len = chunk.len();
    let lists = functions
        .iter()
        .map(|f| Ok(expression::eval(f.list(), &chunk, ctx)?.flatten(len)))
        .collect::<Result<Vec<Vector>>>()?;
    let length = |v: &Vector, row: usize| -> u32 {
        if !v.is_valid(row) {
            return 0;
        }
        let offsets = &v.list().offsets;
        offsets[row + 1] - offsets[row]
    };
    // Output row k repeats input row rows[k], at element position positions[k].
    let mut rows: Vec<u32> = Vec::new();
    let mut positions: Vec<u32> = Vec::new();
    for row in 0..len {
        let n = lists.iter().map(|v| length(v, row)).max().unwrap_or(0);
        for p in 0..n {
            rows.push(row as u32);
            positions.push(p);
        }
    }
    let mut start = 0;
    while start < rows.len() {
        let end = (start + VECTOR_SIZE).min(rows.len());
        let n = end - start;
        let picked = &rows[start..end];
        let mut columns: Vec<Vector> = passed
            .iter()
            .map(|&c| chunk.columns[c].take(picked).flatten(n))
            .collect();
        for (f, v) in functions.iter().zip(&lists) {
            columns.push(set_column(f, v, picked, &positions[start..end], &length)?);
        }
        out(DataChunk::new(columns, n))?;
        start = end;
    }
    Ok(())
}

/// The values of one function for output rows (input row, position) pairs.
fn set_column(
    f: &SetFunction,
    list: &Vector,
    rows: &[u32],
    positions: &[u32],
    length: &dyn Fn(&Vector, usize) -> u32,
) -> Result<Vector> {
    let present = |k: usize| positions[k] < length(list, rows[k] as usize);
    match f {
        SetFunction::Subscripts(_) => {
            if (0..rows.len()).all(present) {
                let values = positions.iter().map(|&p| p as i32 + 1).collect();
                return Ok(Vector::from_values(DataType::Integer, values));
            }
            let mut v = Vector::with_capacity(&DataType::Integer, rows.len());
            for (k, &p) in positions.iter().enumerate() {
                if present(k) {
                    v.push(&stride_common::ScalarValue::Integer(p as i32 + 1))?;
                } else {
                    v.push_null();
                }
            }
            Ok(v)
        }
        SetFunction::Elements(_) => {
            let data = list.list();
            let index = |k: usize| data.offsets[rows[k] as usize] + positions[k];
            if (0..rows.len()).all(present) {
                let indices: Vec<u32> = (0..rows.len()).map(index).collect();
                return Ok(data.child.take(&indices).flatten(rows.len()));
            }
            // A shorter list beside a longer one: NULL past its end.
            let mut v = Vector::with_capacity(&data.child.ty, rows.len());
            for k in 0..rows.len() {
                if present(k) {
                    v.push(&data.child.get(index(k) as usize))?;
                } else {
                    v.push_null();
                }
            }
            Ok(v)
        }
    }
}
