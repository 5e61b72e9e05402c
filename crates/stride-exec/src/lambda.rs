//! Evaluation of lambdas over lists (`list_transform`, `list_filter`,
//! `list_reduce`; the binder builds the [`Expr::Lambda`]). The body runs vectorized
//! over the elements of every row's list at once: the elements are gathered into
//! chunks of up to [`VECTOR_SIZE`] (sliced, not copied, when the lists lie one after
//! another in their child vector, as in a flat vector), with the element's position and the values the
//! body captures from its row beside them, so one evaluation covers many lists. A
//! reduce folds step by step, each step one evaluation over the lists still long
//! enough.

use crate::context::QueryContext;
use crate::expression::eval;
use stride_common::vector::ListData;
use stride_common::{
    DataChunk, DataType, Error, Result, ScalarValue, Validity, Vector, VectorData, VECTOR_SIZE,
};
use stride_sql::plan::{Expr, LambdaKind};

/// The parts of an [`Expr::Lambda`].
pub struct Lambda<'a> {
    pub func: LambdaKind,
    pub list: &'a Expr,
    pub captures: &'a [Expr],
    pub body: &'a Expr,
    pub params: usize,
    pub ty: &'a DataType,
}

pub fn eval_lambda(l: &Lambda, chunk: &DataChunk, ctx: &QueryContext) -> Result<Vector> {
    let lists = eval(l.list, chunk, ctx)?;
    let captures = l
        .captures
        .iter()
        .map(|c| eval(c, chunk, ctx))
        .collect::<Result<Vec<_>>>()?;
    let constant = lists.constant && captures.iter().all(|c| c.constant);
    let rows = if constant { 1 } else { chunk.len() };
    let data = lists.list();
    // Every element of every non-NULL list: its place in the child vector and its row.
    let mut elements = Vec::new();
    let mut row_of = Vec::new();
    let mut positions = Vec::new();
    let mut lengths = vec![0u32; rows];
    // whether the elements lie one after the other in the child vector (as they do in
    // a flat vector of lists), so batches of them are slices rather than gathers
    let mut contiguous = true;
    for (i, n) in lengths.iter_mut().enumerate() {
        if !lists.is_valid(i) {
            continue;
        }
        let j = lists.index(i);
        let (a, b) = (data.offsets[j], data.offsets[j + 1]);
        *n = b - a;
        contiguous &= elements.last().is_none_or(|&last| last + 1 == a) || a == b;
        elements.extend(a..b);
        row_of.extend(std::iter::repeat_n(i as u32, (b - a) as usize));
        if l.params == 2 {
            positions.extend(1..=i64::from(b - a));
        }
    }
    let validity = Validity::from_fn(rows, |i| lists.is_valid(i));
    let mut out = match l.func {
        LambdaKind::Transform | LambdaKind::Filter => {
            let places = Places {
                elements: &elements,
                contiguous,
                rows: &row_of,
                positions: &positions,
            };
            let (values, offsets) = map_elements(l, data, &places, &lengths, &captures, ctx)?;
            let ty = l.ty.clone();
            Vector::new(
                ty,
                VectorData::List(ListData {
                    offsets,
                    child: Box::new(values),
                }),
                validity,
            )
        }
        LambdaKind::Reduce | LambdaKind::ReduceFrom => {
            reduce(l, data, &lists, &lengths, &captures, ctx)?
        }
    };
    out.constant = constant;
    Ok(out)
}

/// A chunk for the body over some elements: the values (or accumulators), the
/// positions when the body takes them, and each element's row's captures.
fn body_chunk(
    first: Vec<Vector>,
    positions: Option<Vec<i64>>,
    rows: &[u32],
    captures: &[Vector],
) -> DataChunk {
    let n = rows.len();
    let mut columns = first;
    if let Some(p) = positions {
        columns.push(Vector::from_values(DataType::BigInt, p));
    }
    columns.extend(captures.iter().map(|c| c.take(rows)));
    DataChunk::new(columns, n)
}

/// Every element to evaluate: its index in the child vector, its row, and its 1-based
/// position in its list.
struct Places<'a> {
    elements: &'a [u32],
    /// Each element is the one after the element before it.
    contiguous: bool,
    rows: &'a [u32],
    positions: &'a [i64],
}

/// Transform and filter: the new child vector and list offsets.
fn map_elements(
    l: &Lambda,
    data: &ListData,
    places: &Places,
    lengths: &[u32],
    captures: &[Vector],
    ctx: &QueryContext,
) -> Result<(Vector, Vec<u32>)> {
    let elem_ty = match l.ty {
        DataType::List(t) => (**t).clone(),
        other => return Err(Error::internal(format!("lambda over lists typed {other}"))),
    };
    let total = places.elements.len();
    let mut values = Vector::with_capacity(&elem_ty, total);
    let mut kept_per_row = lengths.to_vec();
    let mut start = 0;
    while start < total {
        let end = (start + VECTOR_SIZE).min(total);
        let idx = &places.elements[start..end];
        let rows = &places.rows[start..end];
        let positions = (l.params == 2).then(|| places.positions[start..end].to_vec());
        let values_in = if places.contiguous {
            data.child.slice(idx[0] as usize, idx.len())
        } else {
            data.child.take(idx)
        };
        let chunk = body_chunk(vec![values_in], positions, rows, captures);
        let result = eval(l.body, &chunk, ctx)?;
        if l.func == LambdaKind::Transform {
            values.append(&result, idx.len());
        } else {
            let truth = result.values::<bool>();
            let mut chosen = Vec::with_capacity(idx.len());
            for k in 0..idx.len() {
                if result.is_valid(k) && truth[result.index(k)] {
                    chosen.push(idx[k]);
                } else {
                    kept_per_row[rows[k] as usize] -= 1;
                }
            }
            values.append(&data.child.take(&chosen), chosen.len());
        }
        start = end;
    }
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    let mut sum = 0u32;
    offsets.push(0);
    for n in kept_per_row {
        sum += n;
        offsets.push(sum);
    }
    Ok((values, offsets))
}

/// Reduce: the body folded over each list, from the initial value (the first
/// capture) when there is one, else from the first element (cast to the
/// accumulator's type); an empty list without an initial value is an error, as in
/// DuckDB.
fn reduce(
    l: &Lambda,
    data: &ListData,
    lists: &Vector,
    lengths: &[u32],
    captures: &[Vector],
    ctx: &QueryContext,
) -> Result<Vector> {
    let rows = lengths.len();
    let from_initial = l.func == LambdaKind::ReduceFrom;
    let mut acc: Vec<ScalarValue> = vec![ScalarValue::Null; rows];
    for (i, &n) in lengths.iter().enumerate() {
        if !lists.is_valid(i) {
            continue;
        }
        if from_initial {
            acc[i] = captures[0].get(i);
        } else if n == 0 {
            return Err(Error::invalid_input(
                "Cannot perform list_reduce on an empty input list",
            ));
        } else {
            let first = data.child.get(data.offsets[lists.index(i)] as usize);
            acc[i] = stride_functions::cast_scalar(&first, l.ty, false)?;
        }
    }
    // the element each step folds in: the first one when starting from the initial value
    let skip = u32::from(!from_initial);
    let longest = lengths.iter().copied().max().unwrap_or(0);
    for step in skip..longest {
        let active: Vec<u32> = (0..rows as u32)
            .filter(|&i| lists.is_valid(i as usize) && lengths[i as usize] > step)
            .collect();
        for batch in active.chunks(VECTOR_SIZE) {
            let mut accs = Vector::with_capacity(l.ty, batch.len());
            for &r in batch {
                accs.push(&acc[r as usize])?;
            }
            let idx: Vec<u32> = batch
                .iter()
                .map(|&r| data.offsets[lists.index(r as usize)] + step)
                .collect();
            let positions = (l.params == 3).then(|| vec![i64::from(step) + 1; batch.len()]);
            let chunk = body_chunk(
                vec![accs, data.child.take(&idx)],
                positions,
                batch,
                captures,
            );
            let result = eval(l.body, &chunk, ctx)?;
            for (k, &r) in batch.iter().enumerate() {
                acc[r as usize] = result.get(k);
            }
        }
    }
    let mut out = Vector::with_capacity(l.ty, rows);
    for (i, a) in acc.iter().enumerate() {
        if lists.is_valid(i) {
            out.push(a)?;
        } else {
            out.push_null();
        }
    }
    Ok(out)
}
