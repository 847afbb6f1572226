//! The one place where native failures become Java exceptions.
//!
//! Every JNI entry point runs its body through [`run`]. The body returns
//! `Result<T, NativeError>`; an `Err` is thrown as the matching Java exception and a panic is
//! caught and thrown as `dev.streamfusion.bridge.NativePanicException` carrying the panic message.
//! A Java exception raised by an upcall (`jni::errors::Error::JavaException`) is left pending and
//! reaches the Java caller unchanged. In every failure case the entry point returns
//! `T::default()`, which Java never observes because the exception is pending.

use std::any::Any;
use std::backtrace::{Backtrace, BacktraceStatus};
use std::cell::RefCell;
use std::fmt;
use std::sync::Once;

use arrow::error::ArrowError;
use jni::errors::ErrorPolicy;
use jni::objects::{JObject, JValue};
use jni::{Env, EnvUnowned, jni_sig, jni_str};

/// A failure inside native code, typed by what the Java caller can do about it.
#[derive(Debug)]
pub enum NativeError {
    /// A setting or argument is wrong; the message names it.
    Config(String),
    /// Input data could not be decoded; `position` is the record's index in the batch.
    Decode { position: i64, reason: String },
    /// Reading or writing outside the process failed.
    Io(String),
    /// Arrow rejected data or a schema (invalid layout, type mismatch).
    Arrow(ArrowError),
    /// A handle was used after it was freed, or was never valid.
    InvalidHandle(&'static str),
    /// A JNI call failed; when it left a Java exception pending, that exception is kept.
    Jni(jni::errors::Error),
    /// A row's value cannot be computed, where Java fails with an `ArithmeticException` (division
    /// by zero); the message is Java's.
    Arithmetic(String),
    /// Text that does not parse as a number, where Java fails with a `NumberFormatException`; the
    /// message is Flink's.
    NumberFormat(String),
    /// A value Flink's runtime refuses with its `TableException` (text that is not a BOOLEAN);
    /// the message is Flink's.
    Table(String),
    /// Flink's code indexing past an array for a row's value, where Java fails with an
    /// `ArrayIndexOutOfBoundsException`; the message is Java's.
    IndexOutOfBounds(String),
}

impl fmt::Display for NativeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NativeError::Config(msg) => write!(f, "{msg}"),
            NativeError::Decode { position, reason } => {
                write!(f, "record {position} of the batch: {reason}")
            }
            NativeError::Io(msg) => write!(f, "{msg}"),
            NativeError::Arrow(e) => write!(f, "{e}"),
            NativeError::InvalidHandle(kind) => write!(f, "invalid native {kind} handle"),
            NativeError::Jni(e) => write!(f, "JNI call failed: {e}"),
            NativeError::Arithmetic(msg)
            | NativeError::NumberFormat(msg)
            | NativeError::Table(msg)
            | NativeError::IndexOutOfBounds(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for NativeError {}

impl From<ArrowError> for NativeError {
    fn from(e: ArrowError) -> Self {
        NativeError::Arrow(e)
    }
}

impl From<jni::errors::Error> for NativeError {
    fn from(e: jni::errors::Error) -> Self {
        NativeError::Jni(e)
    }
}

/// Result type of every native entry point body.
pub type NativeResult<T> = Result<T, NativeError>;

impl NativeError {
    /// The Java exception class (binary name with slashes) for this error.
    fn java_class(&self) -> &'static str {
        match self {
            NativeError::Config(_) => "dev/streamfusion/bridge/NativeConfigException",
            NativeError::Decode { .. } => "dev/streamfusion/bridge/NativeDecodeException",
            NativeError::Io(_) => "dev/streamfusion/bridge/NativeIoException",
            NativeError::InvalidHandle(_) => "java/lang/IllegalStateException",
            NativeError::Arithmetic(_) => "java/lang/ArithmeticException",
            NativeError::NumberFormat(_) => "java/lang/NumberFormatException",
            NativeError::Table(_) => "org/apache/flink/table/api/TableException",
            NativeError::IndexOutOfBounds(_) => "java/lang/ArrayIndexOutOfBoundsException",
            NativeError::Arrow(_) | NativeError::Jni(_) => {
                "dev/streamfusion/bridge/NativeException"
            }
        }
    }
}

/// Runs a native entry point body, mapping its error or panic to a Java exception.
pub fn run<'local, T, F>(mut env: EnvUnowned<'local>, body: F) -> T
where
    T: Default,
    F: FnOnce(&mut Env<'local>) -> NativeResult<T>,
{
    install_panic_hook();
    env.with_env(body).resolve::<ThrowJava>()
}

thread_local! {
    /// Where the last panic on this thread happened (and its backtrace, when enabled).
    static PANIC_SITE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the default hook, which prints to the JVM's stderr, with one that keeps the panic's
/// location (and backtrace, with `RUST_BACKTRACE=1`) for the Java exception instead.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let mut site = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let backtrace = Backtrace::capture();
            if backtrace.status() == BacktraceStatus::Captured {
                site.push_str(&format!("\n{backtrace}"));
            }
            PANIC_SITE.with(|s| *s.borrow_mut() = Some(site));
        }));
    });
}

/// The error policy of [`run`].
#[derive(Debug)]
pub struct ThrowJava;

impl<T: Default> ErrorPolicy<T, NativeError> for ThrowJava {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: NativeError,
    ) -> jni::errors::Result<T> {
        throw(env, &err)?;
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let site = PANIC_SITE
            .with(|s| s.borrow_mut().take())
            .unwrap_or_default();
        let message = format!("{}{site}", panic_message(payload.as_ref()));
        // An exception may already be pending if the panic happened after a failed upcall.
        if !env.exception_check() {
            let msg = env.new_string(format!("native panic: {message}"))?;
            let class = jni_str!("dev/streamfusion/bridge/NativePanicException");
            let ex = env.new_object(
                class,
                jni_sig!("(Ljava/lang/String;)V"),
                &[JValue::Object(&msg)],
            )?;
            throw_object(env, ex)?;
        }
        Ok(T::default())
    }
}

fn throw(env: &mut Env<'_>, err: &NativeError) -> jni::errors::Result<()> {
    if let NativeError::Jni(jni::errors::Error::JavaException) = err {
        // The Java exception is already pending: it passes back unchanged.
        return Ok(());
    }
    if env.exception_check() {
        // Never replace a pending Java exception with a secondary one.
        return Ok(());
    }
    let msg = env.new_string(err.to_string())?;
    let ex = match err {
        NativeError::Decode { position, .. } => env.new_object(
            jni_str!("dev/streamfusion/bridge/NativeDecodeException"),
            jni_sig!("(Ljava/lang/String;J)V"),
            &[JValue::Object(&msg), JValue::Long(*position)],
        )?,
        other => {
            let class = jni::strings::JNIString::from(other.java_class());
            env.new_object(
                class,
                jni_sig!("(Ljava/lang/String;)V"),
                &[JValue::Object(&msg)],
            )?
        }
    };
    throw_object(env, ex)
}

fn throw_object(env: &mut Env<'_>, ex: JObject<'_>) -> jni::errors::Result<()> {
    let throwable = env.cast_local::<jni::objects::JThrowable>(ex)?;
    match env.throw(throwable) {
        // `throw` reports success as `Err(JavaException)`: the exception is now pending.
        Err(jni::errors::Error::JavaException) | Ok(()) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The text of a panic payload (`&str` or `String`; anything else is named as such).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}
