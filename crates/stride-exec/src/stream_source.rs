//! A pipeline source whose chunks are made one after the other, as they are read: the
//! merge of a sort that spilled (`operators/external_sort.rs`), the partitions of a
//! window that spilled (`operators/window_sink.rs`). Their output is never held whole.
//!
//! The pipeline's workers still take morsels through their counter: morsel `m` is rows
//! `m * MORSEL_SIZE ..` of the stream, so results keep the stream's order. A worker
//! that asks for a morsel past the next one to make (another worker took the morsels
//! before it and has not asked yet) makes those first and keeps them for their
//! workers: at most about one morsel per worker waits.

use std::collections::BTreeMap;
use std::sync::Mutex;
use stride_common::{DataChunk, Error, Result, MORSEL_SIZE};

/// Makes a stream's chunks, in order.
pub trait Produce: Send {
    /// The next chunk, or `None` once every row was made.
    fn next_chunk(&mut self) -> Result<Option<DataChunk>>;
}

pub struct StreamSource {
    rows: u64,
    state: Mutex<State>,
}

struct State {
    producer: Box<dyn Produce>,
    /// The rows of the last chunk made that the previous morsel did not take.
    left: Option<DataChunk>,
    /// The next morsel to make.
    next: usize,
    /// Morsels made before their workers asked for them.
    made: BTreeMap<usize, Vec<DataChunk>>,
}

impl StreamSource {
    /// A source of the `rows` rows `producer` makes.
    pub fn new(rows: u64, producer: Box<dyn Produce>) -> StreamSource {
        StreamSource {
            rows,
            state: Mutex::new(State {
                producer,
                left: None,
                next: 0,
                made: BTreeMap::new(),
            }),
        }
    }

    pub fn morsels(&self) -> usize {
        self.rows.div_ceil(MORSEL_SIZE as u64) as usize
    }

    /// Rows in morsel `m`.
    pub fn rows_in(&self, m: usize) -> u64 {
        let first = m as u64 * MORSEL_SIZE as u64;
        self.rows.saturating_sub(first).min(MORSEL_SIZE as u64)
    }

    /// The chunks of morsel `m`.
    pub fn morsel(&self, m: usize) -> Result<Vec<DataChunk>> {
        let mut s = self
            .state
            .lock()
            .map_err(|_| Error::internal("stream source lock poisoned"))?;
        loop {
            if let Some(chunks) = s.made.remove(&m) {
                return Ok(chunks);
            }
            if s.next > m {
                return Err(Error::internal("a stream's morsel was read twice"));
            }
            let k = s.next;
            s.next += 1;
            // The last morsel takes whatever the producer still makes.
            let rows = match k + 1 == self.morsels() {
                true => usize::MAX,
                false => self.rows_in(k) as usize,
            };
            let chunks = s.make(rows)?;
            if k == m {
                return Ok(chunks);
            }
            s.made.insert(k, chunks);
        }
    }
}

impl State {
    /// The stream's next `rows` rows (fewer at its end).
    fn make(&mut self, rows: usize) -> Result<Vec<DataChunk>> {
        let mut out = Vec::new();
        let mut have = 0;
        while have < rows {
            let chunk = match self.left.take() {
                Some(c) => c,
                None => match self.producer.next_chunk()? {
                    Some(c) => c,
                    None => break,
                },
            };
            let n = chunk.len();
            if have + n > rows {
                let take = rows - have;
                self.left = Some(chunk.slice(take, n - take));
                out.push(chunk.slice(0, take));
                break;
            }
            have += n;
            out.push(chunk);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::{DataType, Vector};

    /// Chunks of 1000 rows counting up from 0.
    struct Count(i64, i64);

    impl Produce for Count {
        fn next_chunk(&mut self) -> Result<Option<DataChunk>> {
            if self.0 >= self.1 {
                return Ok(None);
            }
            let end = (self.0 + 1000).min(self.1);
            let v = Vector::from_values(DataType::BigInt, (self.0..end).collect());
            let n = (end - self.0) as usize;
            self.0 = end;
            Ok(Some(DataChunk::new(vec![v], n)))
        }
    }

    fn values(chunks: &[DataChunk]) -> Vec<i64> {
        chunks
            .iter()
            .flat_map(|c| (0..c.len()).map(move |i| c.columns[0].values::<i64>()[i]))
            .collect()
    }

    #[test]
    fn morsels_hold_their_rows_whatever_order_they_are_asked_in() {
        let rows = 3 * MORSEL_SIZE as i64 + 17;
        let s = StreamSource::new(rows as u64, Box::new(Count(0, rows)));
        assert_eq!(s.morsels(), 4);
        let m = MORSEL_SIZE as i64;
        assert_eq!(
            values(&s.morsel(2).unwrap()),
            (2 * m..3 * m).collect::<Vec<_>>()
        );
        assert_eq!(values(&s.morsel(0).unwrap()), (0..m).collect::<Vec<_>>());
        assert_eq!(
            values(&s.morsel(3).unwrap()),
            (3 * m..rows).collect::<Vec<_>>()
        );
        assert_eq!(
            values(&s.morsel(1).unwrap()),
            (m..2 * m).collect::<Vec<_>>()
        );
        assert!(s.morsel(1).is_err());
    }
}
