//! Shared value buffers: the storage behind every fixed-width [`crate::Vector`] and
//! behind the heap of string vectors.
//!
//! A [`Buffer`] is a reference-counted `Vec<T>` plus an optional window into it, so
//! cloning a vector or slicing a 2048-row chunk out of a stored row group copies no
//! values: a table scan hands out windows of the table's own buffers. A buffer may
//! instead borrow memory another owner manages (an Arrow array handed over by Python,
//! a memory-mapped Arrow file): [`Buffer::from_foreign`] keeps that owner alive for as
//! long as any window onto it exists, so foreign data is read in place.
//!
//! Writing is copy-on-write: [`Buffer::make_mut`] returns the `Vec` itself when this
//! buffer is its only owner and sees all of it, and otherwise (shared, windowed or
//! foreign) first copies the visible values into a fresh `Vec` of its own.

use std::ops::{Deref, DerefMut};
use std::panic::RefUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub struct Buffer<T> {
    data: Storage<T>,
    /// `Some((offset, len))` when only part of `data` belongs to this buffer.
    window: Option<(usize, usize)>,
    /// Known to be the sole owner of all of an owned `data`: set when a write made it
    /// so, cleared when the storage is shared (by `clone` or `slice`, through
    /// `&self`). Lets the many small writes of a builder (one string view per `push`)
    /// skip the atomic read-modify-write of `Arc::get_mut`.
    unique: AtomicBool,
}

enum Storage<T> {
    Owned(Arc<Vec<T>>),
    Foreign(Arc<Foreign<T>>),
}

impl<T> Clone for Storage<T> {
    fn clone(&self) -> Self {
        match self {
            Storage::Owned(v) => Storage::Owned(Arc::clone(v)),
            Storage::Foreign(f) => Storage::Foreign(Arc::clone(f)),
        }
    }
}

/// Values in memory that `_owner` keeps alive and nobody writes.
struct Foreign<T> {
    ptr: *const T,
    len: usize,
    _owner: Arc<dyn RefUnwindSafe + Send + Sync>,
}

// SAFETY: a `Foreign` only ever hands out `&[T]` to memory nobody mutates, and its
// owner is `Send + Sync`; so it may move and be shared between threads like `[T]`.
unsafe impl<T: Sync> Send for Foreign<T> {}
unsafe impl<T: Sync> Sync for Foreign<T> {}

impl<T> Storage<T> {
    #[inline]
    fn all(&self) -> &[T] {
        match self {
            Storage::Owned(v) => v,
            // SAFETY: `from_foreign`'s contract: `len` valid, aligned, unchanging `T`s
            // at `ptr` for as long as the owner lives, which is at least as long as
            // `self`.
            Storage::Foreign(f) => unsafe { std::slice::from_raw_parts(f.ptr, f.len) },
        }
    }

    fn addr(&self) -> *const () {
        match self {
            Storage::Owned(v) => Arc::as_ptr(v) as *const (),
            Storage::Foreign(f) => Arc::as_ptr(f) as *const (),
        }
    }
}

impl<T> Clone for Buffer<T> {
    fn clone(&self) -> Self {
        self.unique.store(false, Ordering::Relaxed);
        Buffer {
            data: self.data.clone(),
            window: self.window,
            unique: AtomicBool::new(false),
        }
    }
}

impl<T> Buffer<T> {
    /// `len` values at `ptr`, read in place for as long as any buffer made from them
    /// lives; `owner` is kept alive until then (an Arrow buffer, a file mapping).
    /// Writing through [`Buffer::make_mut`] copies them first.
    ///
    /// # Safety
    /// `ptr` must point to `len` initialized, properly aligned values of `T` that stay
    /// valid and unmodified while `owner` lives (`ptr` may dangle when `len` is 0).
    pub unsafe fn from_foreign(
        ptr: *const T,
        len: usize,
        owner: Arc<dyn RefUnwindSafe + Send + Sync>,
    ) -> Self {
        let ptr = if len == 0 {
            std::ptr::NonNull::dangling().as_ptr()
        } else {
            ptr
        };
        Buffer {
            data: Storage::Foreign(Arc::new(Foreign {
                ptr,
                len,
                _owner: owner,
            })),
            window: None,
            unique: AtomicBool::new(false),
        }
    }

    /// Whether the values are read in place from memory another owner manages.
    pub fn is_foreign(&self) -> bool {
        matches!(self.data, Storage::Foreign(_))
    }

    /// Copies foreign values into storage of this buffer's own (for data that must
    /// outlive or not follow the foreign memory: a stored table's rows).
    pub fn make_owned(&mut self)
    where
        T: Clone,
    {
        if self.is_foreign() {
            *self = self.to_vec().into();
        }
    }

    /// Whether both buffers are the same window onto the same storage.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        self.data.addr() == other.data.addr() && self.window == other.window
    }

    /// The `Vec` behind this buffer when it alone owns all of it, for appending in
    /// place; `None` when it is shared, windowed or foreign (nothing is copied).
    pub fn get_mut(&mut self) -> Option<&mut Vec<T>> {
        if self.window.is_some() {
            return None;
        }
        match &mut self.data {
            Storage::Owned(v) => {
                let v = Arc::get_mut(v)?;
                *self.unique.get_mut() = true;
                Some(v)
            }
            Storage::Foreign(_) => None,
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
            data: self.data.clone(),
            window: Some((base + offset, len)),
            unique: AtomicBool::new(false),
        }
    }

    /// The values as a `Vec` this buffer alone owns, copying them first when the
    /// storage is shared, foreign or only partly visible.
    #[inline]
    pub fn make_mut(&mut self) -> &mut Vec<T> {
        if *self.unique.get_mut() {
            if let Storage::Owned(v) = &self.data {
                // SAFETY: `unique` is only true while this buffer is the one owner of
                // the `Arc` (no clone or slice made since a write found it so, and no
                // `Weak` is ever made) and sees all of it; `&mut self` excludes other
                // access.
                return unsafe { &mut *(Arc::as_ptr(v) as *mut Vec<T>) };
            }
        }
        self.make_unique()
    }

    #[cold]
    fn make_unique(&mut self) -> &mut Vec<T> {
        let owned_whole = self.window.is_none()
            && match &mut self.data {
                Storage::Owned(v) => Arc::get_mut(v).is_some(),
                Storage::Foreign(_) => false,
            };
        if !owned_whole {
            let own = self.deref().to_vec();
            self.data = Storage::Owned(Arc::new(own));
            self.window = None;
        }
        *self.unique.get_mut() = true;
        match &mut self.data {
            Storage::Owned(v) => Arc::get_mut(v).expect("a buffer just made unique"),
            Storage::Foreign(_) => unreachable!("foreign storage was just copied"),
        }
    }
}

impl<T> From<Vec<T>> for Buffer<T> {
    fn from(v: Vec<T>) -> Self {
        Buffer {
            data: Storage::Owned(Arc::new(v)),
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
        let all = self.data.all();
        match self.window {
            None => all,
            Some((o, n)) => &all[o..o + n],
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

    #[test]
    fn foreign_values_are_read_in_place_and_copied_on_write() {
        let owner: Arc<Vec<i64>> = Arc::new((0..8).collect());
        let ptr = owner.as_ptr();
        // SAFETY: `owner` holds 8 i64s that nobody changes.
        let f = unsafe { Buffer::from_foreign(ptr, 8, owner.clone()) };
        assert!(f.is_foreign());
        assert_eq!(f.as_ptr(), ptr, "read in place");
        let s = f.slice(2, 3);
        assert_eq!((&*s, s.as_ptr()), (&[2, 3, 4][..], ptr.wrapping_add(2)));
        assert!(s.ptr_eq(&f.slice(2, 3)) && !s.ptr_eq(&f));
        let mut w = s.clone();
        assert!(w.get_mut().is_none());
        w.make_mut().push(9);
        assert!(!w.is_foreign());
        assert_eq!((&*w, &*s), (&[2, 3, 4, 9][..], &[2, 3, 4][..]));
        drop((f, s));
        assert_eq!(
            Arc::strong_count(&owner),
            1,
            "the owner is released with the last window"
        );
        // SAFETY: an empty foreign buffer reads nothing.
        let empty: Buffer<i64> = unsafe { Buffer::from_foreign(std::ptr::null(), 0, owner) };
        assert!(empty.is_empty());
    }
}
