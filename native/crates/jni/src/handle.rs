//! Native objects owned by Java handles.
//!
//! A native object is boxed and its address handed to Java as a `jlong`
//! (`dev.streamfusion.bridge.NativeHandle`). Java guarantees that a handle is freed at most once
//! and never used after it is freed (its `close()` is idempotent and every call checks that the
//! handle is open), and that calls on one handle are not concurrent. A zero handle is rejected
//! here as a second line of defence.
//!
//! Every JNI function takes its handle from the `NativeHandle` that owns it, so the safety of
//! [`object_of`] and [`drop_handle`] rests on that contract, once, here: they are the only way the
//! `native_*` files reach a handle's object.

use jni::sys::jlong;

use crate::errors::{NativeError, NativeResult};

/// Moves `value` to the heap and returns its address for Java to own.
pub fn into_handle<T>(value: T) -> jlong {
    Box::into_raw(Box::new(value)) as jlong
}

/// The object behind the handle a `NativeHandle` passed to a native method: open, created by
/// [`into_handle::<T>`], and not in use by another call (the `NativeHandle` contract above).
pub(crate) fn object_of<'a, T>(handle: jlong, kind: &'static str) -> NativeResult<&'a mut T> {
    // SAFETY: the handle comes from its `NativeHandle` (module docs).
    unsafe { borrow_handle(handle, kind) }
}

/// Drops the object behind a handle; its `NativeHandle` calls this once, on close.
pub(crate) fn drop_handle<T>(handle: jlong) {
    // SAFETY: `NativeHandle.close()` frees a handle once and never uses it after (module docs).
    unsafe { free_handle::<T>(handle) }
}

/// Borrows the object behind a handle.
///
/// # Safety
/// `handle` must come from [`into_handle::<T>`], must not have been passed to [`free_handle`],
/// and no other reference to the object may be live.
unsafe fn borrow_handle<'a, T>(handle: jlong, kind: &'static str) -> NativeResult<&'a mut T> {
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
unsafe fn free_handle<T>(handle: jlong) {
    let ptr = handle as *mut T;
    if !ptr.is_null() {
        // SAFETY: guaranteed by the caller.
        drop(unsafe { Box::from_raw(ptr) });
    }
}
