//! Sequences (`CREATE SEQUENCE`): named counters that `nextval` advances and `currval`
//! reads, shared by every connection and transaction of a database. As in DuckDB and
//! PostgreSQL they are not transactional: a value handed out is never handed out
//! again, even when the transaction that took it rolls back.
//!
//! Where it sits: the catalog keeps one [`Sequence`] per name; the executor calls
//! [`Sequence::next_values`] while it evaluates `nextval`; the connection writes the
//! counters of sequences that moved into the write-ahead log before and after every
//! statement (so no stored row holds a value the log does not cover), straight to
//! the log also inside a transaction, and every checkpoint stores them.

use std::sync::Mutex;
use stride_common::{Error, ErrorKind, Result};

/// What `CREATE SEQUENCE` fixes: where the counter starts, its step and bounds, and
/// whether it wraps around at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceOptions {
    pub start: i64,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub cycle: bool,
}

impl SequenceOptions {
    /// DuckDB's defaults for a step: 1 to i64::MAX going up from 1, or -1 down to
    /// i64::MIN; `start` defaults to the bound the sequence moves away from.
    pub fn new(
        increment: i64,
        min: Option<i64>,
        max: Option<i64>,
        start: Option<i64>,
        cycle: bool,
    ) -> Result<SequenceOptions> {
        let invalid = |m: String| Err(Error::new(ErrorKind::Parse, m));
        if increment == 0 {
            return invalid("Increment must not be zero".into());
        }
        let up = increment > 0;
        let min = min.unwrap_or(if up { 1 } else { i64::MIN });
        let max = max.unwrap_or(if up { i64::MAX } else { -1 });
        let start = start.unwrap_or(if up { min } else { max });
        if max <= min {
            return invalid(format!(
                "MINVALUE ({min}) must be less than MAXVALUE ({max})"
            ));
        }
        if start < min {
            return invalid(format!(
                "START value ({start}) cannot be less than MINVALUE ({min})"
            ));
        }
        if start > max {
            return invalid(format!(
                "START value ({start}) cannot be greater than MAXVALUE ({max})"
            ));
        }
        Ok(SequenceOptions {
            start,
            increment,
            min,
            max,
            cycle,
        })
    }
}

/// Where a sequence's counter stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceState {
    /// The value the next `nextval` returns; `None` when the sequence is used up.
    pub next: Option<i64>,
    /// The value the last `nextval` returned (what `currval` reads).
    pub last: Option<i64>,
}

#[derive(Debug)]
pub struct Sequence {
    /// Given by the catalog when created.
    pub id: u64,
    pub name: String,
    pub options: SequenceOptions,
    state: Mutex<Counter>,
}

#[derive(Debug)]
struct Counter {
    state: SequenceState,
    /// Moved since its state was last written to the log.
    dirty: bool,
}

impl Sequence {
    pub fn new(id: u64, name: String, options: SequenceOptions) -> Sequence {
        let state = SequenceState {
            next: Some(options.start),
            last: None,
        };
        Sequence::restore(id, name, options, state)
    }

    /// A sequence read back from a checkpoint or the log, at `state`.
    pub fn restore(
        id: u64,
        name: String,
        options: SequenceOptions,
        state: SequenceState,
    ) -> Sequence {
        Sequence {
            id,
            name,
            options,
            state: Mutex::new(Counter {
                state,
                dirty: false,
            }),
        }
    }

    fn counter(&self) -> Result<std::sync::MutexGuard<'_, Counter>> {
        self.state
            .lock()
            .map_err(|_| Error::internal("sequence lock poisoned"))
    }

    /// Takes `n` values, appending them to `out`; past the last value, a sequence
    /// without CYCLE is an error (and hands out nothing more).
    pub fn next_values(&self, n: usize, out: &mut Vec<i64>) -> Result<()> {
        let o = &self.options;
        let mut c = self.counter()?;
        for _ in 0..n {
            let Some(v) = c.state.next else {
                let (which, bound) = if o.increment > 0 {
                    ("maximum", o.max)
                } else {
                    ("minimum", o.min)
                };
                return Err(Error::new(
                    ErrorKind::Sequence,
                    format!(
                        "nextval: reached {which} value of sequence \"{}\" ({bound})",
                        self.name
                    ),
                ));
            };
            out.push(v);
            c.state.last = Some(v);
            c.dirty = true;
            c.state.next = self.after(v);
        }
        Ok(())
    }

    /// The value that follows `v`: a step on, wrapped around with CYCLE; `None` past
    /// the end.
    fn after(&self, v: i64) -> Option<i64> {
        let o = &self.options;
        match v.checked_add(o.increment) {
            Some(x) if (o.min..=o.max).contains(&x) => Some(x),
            _ if o.cycle => Some(if o.increment > 0 { o.min } else { o.max }),
            _ => None,
        }
    }

    /// `setval`: moves the counter to `value`, which the next `nextval` returns
    /// unless `is_called` (then `value` counts as handed out, and `currval` reads it).
    pub fn set(&self, value: i64, is_called: bool) -> Result<i64> {
        let o = &self.options;
        if !(o.min..=o.max).contains(&value) {
            return Err(Error::new(
                ErrorKind::Sequence,
                format!(
                    "setval: value {value} is out of bounds for sequence \"{}\" ({}..{})",
                    self.name, o.min, o.max
                ),
            ));
        }
        let mut c = self.counter()?;
        c.dirty = true;
        if !is_called {
            c.state.next = Some(value);
            return Ok(value);
        }
        c.state.last = Some(value);
        c.state.next = self.after(value);
        Ok(value)
    }

    /// The value the last `nextval` returned.
    pub fn current(&self) -> Result<i64> {
        self.counter()?.state.last.ok_or_else(|| {
            Error::new(
                ErrorKind::Sequence,
                "currval: sequence is not yet defined in this session",
            )
        })
    }

    pub fn state(&self) -> SequenceState {
        self.counter().map(|c| c.state).unwrap_or(SequenceState {
            next: None,
            last: None,
        })
    }

    /// Sets the counter (replaying the log).
    pub fn set_state(&self, state: SequenceState) -> Result<()> {
        let mut c = self.counter()?;
        c.state = state;
        c.dirty = false;
        Ok(())
    }

    /// Whether it moved since its state was last written to the log.
    pub fn moved(&self) -> bool {
        self.counter().is_ok_and(|c| c.dirty)
    }

    /// The state to log when the sequence moved since it was last logged (and marks
    /// it logged).
    pub fn take_moved(&self) -> Option<SequenceState> {
        let mut c = self.counter().ok()?;
        std::mem::take(&mut c.dirty).then_some(c.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(s: &Sequence, n: usize) -> Result<Vec<i64>> {
        let mut v = Vec::new();
        s.next_values(n, &mut v).map(|_| v)
    }

    #[test]
    fn counts_cycles_and_ends() {
        let s = Sequence::new(
            1,
            "s".into(),
            SequenceOptions::new(1, None, None, None, false).unwrap(),
        );
        assert!(s.current().is_err());
        assert_eq!(take(&s, 3).unwrap(), vec![1, 2, 3]);
        assert_eq!(s.current().unwrap(), 3);
        let down = SequenceOptions::new(-3, Some(1), Some(10), Some(10), false).unwrap();
        let d = Sequence::new(2, "d".into(), down);
        assert_eq!(take(&d, 4).unwrap(), vec![10, 7, 4, 1]);
        let e = take(&d, 1).unwrap_err().to_string();
        assert!(
            e.contains("reached minimum value of sequence \"d\" (1)"),
            "{e}"
        );
        let c = Sequence::new(
            3,
            "c".into(),
            SequenceOptions::new(1, None, Some(2), None, true).unwrap(),
        );
        assert_eq!(take(&c, 5).unwrap(), vec![1, 2, 1, 2, 1]);
        let top = SequenceOptions::new(i64::MAX, None, None, Some(i64::MAX), false).unwrap();
        let t = Sequence::new(4, "t".into(), top);
        assert_eq!(take(&t, 1).unwrap(), vec![i64::MAX]);
        assert!(take(&t, 1).is_err());
        assert!(t.take_moved().is_some());
        assert!(t.take_moved().is_none());
        assert_eq!(s.set(10, true).unwrap(), 10);
        assert_eq!(take(&s, 1).unwrap(), vec![11]);
        s.set(5, false).unwrap();
        assert_eq!(take(&s, 1).unwrap(), vec![5]);
        let e = s.set(0, true).unwrap_err().to_string();
        assert!(
            e.contains("value 0 is out of bounds for sequence \"s\" (1..9223372036854775807)"),
            "{e}"
        );
    }

    #[test]
    fn checks_options() {
        assert!(SequenceOptions::new(0, None, None, None, false).is_err());
        let e = SequenceOptions::new(1, Some(10), None, Some(5), false).unwrap_err();
        assert!(e
            .to_string()
            .contains("START value (5) cannot be less than MINVALUE (10)"));
        assert_eq!(
            SequenceOptions::new(-1, None, None, None, false)
                .unwrap()
                .start,
            -1
        );
    }
}
