//! Small chunks gathered into full ones. A selective join emits a few rows per probe
//! chunk (TPC-H Q8: 15 of every 2048 lineitem rows find a part), and every operator
//! after it pays its per-chunk costs (allocations, a hash table's setup, a build
//! side's appends) for each of those few rows. Inside a pipeline, the output of a
//! join passes through a [`Coalescer`]: chunks below [`SMALL`] rows wait until they
//! add up to about a full chunk, and are then copied into one.
//!
//! Chunks leave in the order they came (a waiting batch goes on before a larger chunk
//! that passes straight through), and the pipeline flushes every coalescer at the end
//! of each morsel, so a morsel's rows stay together and in order.

use stride_common::{DataChunk, DataType, Vector, VECTOR_SIZE};

/// Chunks with fewer rows than this are worth copying into a fuller one.
pub const SMALL: usize = VECTOR_SIZE / 8;

/// Rows of small chunks waiting to leave as one.
#[derive(Default)]
pub struct Coalescer {
    chunks: Vec<DataChunk>,
    rows: usize,
}

impl Coalescer {
    /// Takes `chunk`; returns what is ready to go on, in order (nothing while it
    /// waits).
    pub fn add(&mut self, chunk: DataChunk) -> impl Iterator<Item = DataChunk> {
        let n = chunk.len();
        let (mut first, mut second) = (None, None);
        if n >= SMALL {
            first = self.take();
            second = Some(chunk);
        } else {
            if self.rows + n > VECTOR_SIZE {
                first = self.take();
            }
            self.rows += n;
            self.chunks.push(chunk);
            if self.rows >= VECTOR_SIZE - SMALL {
                second = self.take();
            }
        }
        first.into_iter().chain(second)
    }

    /// The waiting rows as one chunk, if any.
    pub fn take(&mut self) -> Option<DataChunk> {
        let chunks = std::mem::take(&mut self.chunks);
        let rows = std::mem::replace(&mut self.rows, 0);
        match chunks.len() {
            0 => None,
            1 => chunks.into_iter().next(),
            _ => {
                let types = chunks[0].types();
                let cols = (0..types.len())
                    .map(|k| concat_column(&chunks, k, &types[k], rows))
                    .collect();
                Some(DataChunk::new(cols, rows))
            }
        }
    }
}

/// Column `k` of every chunk (through its selection) as one flat vector of `rows`
/// rows, sized once.
pub fn concat_column(chunks: &[DataChunk], k: usize, ty: &DataType, rows: usize) -> Vector {
    let mut column = Vector::with_capacity(ty, rows);
    for c in chunks {
        match c.selection {
            None => column.append(&c.columns[k], c.len()),
            Some(_) => column.append(&c.column(k), c.len()),
        }
    }
    column
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::SelectionVector;

    fn chunk(start: i64, n: usize) -> DataChunk {
        let vals: Vec<i64> = (start..start + n as i64).collect();
        DataChunk::new(vec![Vector::from_values(DataType::BigInt, vals)], n)
    }

    fn values(c: &DataChunk) -> Vec<i64> {
        c.column(0).values::<i64>()[..c.len()].to_vec()
    }

    #[test]
    fn small_chunks_leave_together_and_in_order() {
        let mut co = Coalescer::default();
        let mut out = Vec::new();
        // Three small chunks wait; the second through a selection.
        out.extend(co.add(chunk(0, 3)));
        let mut c = chunk(3, 4);
        c.select(SelectionVector::new(vec![1, 3]));
        out.extend(co.add(c));
        out.extend(co.add(chunk(10, 2)));
        assert!(out.is_empty());
        // A large chunk sends the waiting ones first, then itself.
        out.extend(co.add(chunk(100, SMALL)));
        assert_eq!(out.len(), 2);
        assert_eq!(values(&out[0]), vec![0, 1, 2, 4, 6, 10, 11]);
        assert_eq!(out[1].len(), SMALL);
        assert!(co.take().is_none());
        // Small chunks that fill a vector leave as soon as they do.
        let mut sent = 0;
        for i in 0..VECTOR_SIZE {
            for c in co.add(chunk(i as i64 * 10, 10)) {
                assert!(c.len() >= VECTOR_SIZE - SMALL && c.len() <= VECTOR_SIZE);
                sent += c.len();
            }
        }
        sent += co.take().map_or(0, |c| c.len());
        assert_eq!(sent, VECTOR_SIZE * 10);
    }
}
