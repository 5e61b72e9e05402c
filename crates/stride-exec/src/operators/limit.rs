//! LIMIT / OFFSET without ORDER BY: keeps chunks in morsel order and stops the
//! pipeline once the rows before the first unfinished morsel cover the limit.

use crate::pipeline::Sink;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use stride_common::{DataChunk, Error, Result};

pub struct LimitSink {
    needed: u64,
    state: Mutex<State>,
    done: AtomicBool,
}

#[derive(Default)]
struct State {
    finished: BTreeMap<usize, Vec<DataChunk>>,
}

impl LimitSink {
    pub fn new(limit: Option<u64>, offset: u64) -> Self {
        LimitSink {
            needed: limit.map_or(u64::MAX, |l| l.saturating_add(offset)),
            state: Mutex::new(State::default()),
            done: AtomicBool::new(false),
        }
    }

    pub fn finish(self, limit: Option<u64>, offset: u64) -> Result<Vec<DataChunk>> {
        let state = self
            .state
            .into_inner()
            .map_err(|_| Error::internal("limit lock poisoned"))?;
        let mut skip = offset;
        let mut left = limit.unwrap_or(u64::MAX);
        let mut out = Vec::new();
        for c in state.finished.into_values().flatten() {
            if left == 0 {
                break;
            }
            let n = c.len() as u64;
            if skip >= n {
                skip -= n;
                continue;
            }
            let take = (n - skip).min(left);
            out.push(if skip == 0 && take == n {
                c
            } else {
                c.slice(skip as usize, take as usize)
            });
            left -= take;
            skip = 0;
        }
        Ok(out)
    }
}

impl Sink for LimitSink {
    type Local = Vec<DataChunk>;

    fn local(&self) -> Self::Local {
        Vec::new()
    }

    fn consume(&self, local: &mut Self::Local, _morsel: usize, chunk: DataChunk) -> Result<()> {
        local.push(chunk.flatten());
        Ok(())
    }

    fn morsel_done(&self, local: &mut Self::Local, morsel: usize) -> Result<()> {
        let mut s = self
            .state
            .lock()
            .map_err(|_| Error::internal("limit lock poisoned"))?;
        s.finished.insert(morsel, std::mem::take(local));
        // Rows in the contiguous prefix of finished morsels.
        let mut rows = 0u64;
        for (i, (m, chunks)) in s.finished.iter().enumerate() {
            if *m != i {
                break;
            }
            rows += chunks.iter().map(|c| c.len() as u64).sum::<u64>();
        }
        if rows >= self.needed {
            self.done.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    fn combine(&self, _local: Self::Local) -> Result<()> {
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }
}
