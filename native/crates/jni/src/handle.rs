//! Native objects owned by Java handles.
//!
//! A native object is boxed and its address handed to Java as a `jlong`
//! (`dev.streamfusion.bridge.NativeHandle`). Java guarantees that a handle is freed at most once
//! and never used after it is freed (its `close()` is idempotent and every call checks that the
//! handle is open), and that calls on one handle are not concurrent. A zero handle is rejected
//! here as a second line of defence.

use jni::sys::jlong;

use crate::errors::{NativeError, NativeResult};

/// Moves `value` to the heap and returns its address for Java to own.
pub fn into_handle<T>(value: T) -> jlong {
    Box::into_raw(Box::new(value)) as jlong
}

/// Borrows the object behind a handle.
///
/// # Safety
/// `handle` must come from [`into_handle::<T>`], must not have been passed to [`free_handle`],
/// and no other reference to the object may be live.
pub unsafe fn borrow_handle<'a, T>(handle: jlong, kind: &'static str) -> NativeResult<&'a mut T> {
    let ptr = handle as *mut T;
    if ptr.is_null() {
        return Err(NativeError::InvalidHandle(kind));
    }
    // SAFETY: guaranteed by the caller.
    Ok(unsafe { &mut *ptr })
}

/// Drops the object behind a handle.
///
/// # Safety
/// `handle` must come from [`into_handle::<T>`] and must not be used again afterwards.
pub unsafe fn free_handle<T>(handle: jlong) {
    let ptr = handle as *mut T;
    if !ptr.is_null() {
        // SAFETY: guaranteed by the caller.
        drop(unsafe { Box::from_raw(ptr) });
    }
}
