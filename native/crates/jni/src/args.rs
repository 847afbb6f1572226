//! Java arguments as Rust values, for the native methods of several classes.

use jni::Env;
use jni::objects::{JByteArray, JIntArray, JObjectArray, JString};

use crate::errors::{NativeError, NativeResult};

/// The strings of a `String[]`.
pub(crate) fn strings(env: &mut Env<'_>, array: &JObjectArray<'_>) -> NativeResult<Vec<String>> {
    let len = array.len(env)?;
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let element = array.get_element(env, i)?;
        let s = env.cast_local::<JString>(element)?;
        out.push(s.try_to_string(env)?);
    }
    Ok(out)
}

/// The elements of an `int[]`.
pub(crate) fn ints(env: &mut Env<'_>, array: &JIntArray<'_>) -> NativeResult<Vec<i32>> {
    let mut values = vec![0; array.len(env)?];
    array.get_region(env, 0, &mut values)?;
    Ok(values)
}

/// Type codes and their precisions, passed side by side from Java, as pairs.
pub(crate) fn code_pairs<'a>(
    codes: &'a [i32],
    precisions: &'a [i32],
) -> NativeResult<impl Iterator<Item = (i32, i32)> + 'a> {
    if codes.len() != precisions.len() {
        return Err(NativeError::Config(format!(
            "{} type codes but {} precisions",
            codes.len(),
            precisions.len()
        )));
    }
    Ok(codes.iter().copied().zip(precisions.iter().copied()))
}

/// The first `len` bytes of a `byte[]`.
pub(crate) fn bytes(
    env: &mut Env<'_>,
    array: &JByteArray<'_>,
    len: usize,
) -> NativeResult<Vec<u8>> {
    let mut bytes = vec![0i8; len];
    array.get_region(env, 0, &mut bytes)?;
    Ok(bytes.into_iter().map(|b| b as u8).collect())
}

/// The owned parts of a `MessageSchema` passed from Java: a format's descriptor bytes and
/// message name, each `null` when the format needs none.
pub(crate) fn message_schema_args(
    env: &mut Env<'_>,
    descriptors: &JByteArray<'_>,
    message: &JString<'_>,
) -> NativeResult<(Option<Vec<u8>>, Option<String>)> {
    let descriptors = if descriptors.is_null() {
        None
    } else {
        let len = descriptors.len(env)?;
        Some(bytes(env, descriptors, len)?)
    };
    let message = if message.is_null() {
        None
    } else {
        Some(message.try_to_string(env)?)
    };
    Ok((descriptors, message))
}

/// Fails unless an array Java passed (of `len` elements) holds the `needed` the call fills.
pub(crate) fn check_len(len: usize, needed: usize, what: &str) -> NativeResult<()> {
    if len < needed {
        return Err(NativeError::Config(format!(
            "the {what} array needs {needed} elements"
        )));
    }
    Ok(())
}
