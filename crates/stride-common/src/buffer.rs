//! Shared value buffers: the storage behind every fixed-width [`crate::Vector`].
//!
//! A [`Buffer`] is a reference-counted `Vec<T>` plus an optional window into it, so
//! cloning a vector or slicing a 2048-row chunk out of a stored row group copies no
//! values: a table scan hands out windows of the table's own buffers. Writing is
//! copy-on-write: [`Buffer::make_mut`] returns the `Vec` itself when this buffer is its
//! only owner and sees all of it, and otherwise first copies the visible values into a
//! fresh `Vec` of its own.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub struct Buffer<T> {
    data: Arc<Vec<T>>,
    /// `Some((offset, len))` when only part of `data` belongs to this buffer.
    window: Option<(usize, usize)>,
    /// Known to be the sole owner of all of `data`: set when a write made it so,
    /// cleared when the storage is shared (by `clone` or `slice`, through `&self`).
    /// Lets the many small writes of a builder (one string view per `push`) skip the
    /// atomic read-modify-write of `Arc::get_mut`.
    unique: AtomicBool,
}

impl<T> Clone for Buffer<T> {
    fn clone(&self) -> Self {
        self.unique.store(false, Ordering::Relaxed);
        Buffer {
            data: Arc::clone(&self.data),
            window: self.window,
            unique: AtomicBool::new(false),
        }
    }
}

impl<T: Clone> Buffer<T> {
    /// Values `offset..offset + len` of this buffer, sharing its storage.
    pub fn slice(&self, offset: usize, len: usize) -> Self {
        let base = self.window.map_or(0, |(o, _)| o);
        assert!(offset + len <= self.len(), "buffer slice out of range");
        self.unique.store(false, Ordering::Relaxed);
        Buffer {
            data: Arc::clone(&self.data),
            window: Some((base + offset, len)),
            unique: AtomicBool::new(false),
        }
    }

    /// The values as a `Vec` this buffer alone owns, copying them first when the
    /// storage is shared or only partly visible.
    #[inline]
    pub fn make_mut(&mut self) -> &mut Vec<T> {
        if *self.unique.get_mut() {
            // SAFETY: `unique` is only true while this buffer is the one owner of the
            // `Arc` (no clone or slice made since a write found it so, and no `Weak`
            // is ever made) and sees all of it; `&mut self` excludes other access.
            return unsafe { &mut *(Arc::as_ptr(&self.data) as *mut Vec<T>) };
        }
        self.make_unique()
    }

    #[cold]
    fn make_unique(&mut self) -> &mut Vec<T> {
        if self.window.is_some() || Arc::get_mut(&mut self.data).is_none() {
            let own = self.deref().to_vec();
            self.data = Arc::new(own);
            self.window = None;
        }
        *self.unique.get_mut() = true;
        Arc::get_mut(&mut self.data).expect("a buffer just made unique")
    }
}

impl<T> From<Vec<T>> for Buffer<T> {
    fn from(v: Vec<T>) -> Self {
        Buffer {
            data: Arc::new(v),
            window: None,
            unique: AtomicBool::new(true),
        }
    }
}

impl<T> Default for Buffer<T> {
    fn default() -> Self {
        Vec::new().into()
    }
}

impl<T> Deref for Buffer<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self.window {
            None => &self.data,
            Some((o, n)) => &self.data[o..o + n],
        }
    }
}

impl<T: Clone> DerefMut for Buffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.make_mut()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_share_and_writes_copy() {
        let a = Buffer::from((0..10).collect::<Vec<i64>>());
        let s = a.slice(2, 5);
        assert_eq!(&*s, &[2, 3, 4, 5, 6]);
        assert_eq!(&*s.slice(1, 2), &[3, 4]);
        let mut w = s.clone();
        w.make_mut().push(99);
        assert_eq!(&*w, &[2, 3, 4, 5, 6, 99]);
        assert_eq!(&*s, &[2, 3, 4, 5, 6]);
        assert_eq!(a.len(), 10);
        let mut v = Vec::with_capacity(4);
        v.extend([1, 2]);
        let mut only = Buffer::from(v);
        let before = only.as_ptr();
        only.make_mut().push(3);
        assert_eq!(only.as_ptr(), before, "a sole owner writes in place");
        assert_eq!(&*only, &[1, 2, 3]);
        // Shared, then sole owner again once the other owner is gone.
        let other = only.clone();
        only.make_mut().push(4);
        assert_eq!((&*other, &*only), (&[1, 2, 3][..], &[1, 2, 3, 4][..]));
        let mut back = other.clone();
        drop(other);
        let before = back.as_ptr();
        back.make_mut().push(5);
        assert_eq!(back.as_ptr(), before, "unshared again: written in place");
        let part = only.slice(1, 2);
        only.make_mut()[1] = 20;
        assert_eq!((&*part, &*only), (&[2, 3][..], &[1, 20, 3, 4][..]));
    }
}
