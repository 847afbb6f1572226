//! Upcalls into `dev.streamfusion.iceberg.internal.TableFiles`: the Iceberg files the native
//! reader and writer do not open themselves (any location but a local path), reached through the
//! table's Iceberg `FileIO`, so every scheme Iceberg Java reads and writes works here, with its
//! settings. Each call is one upcall; reads copy straight into native memory (see `java_ranges`),
//! writes are read by Java straight from it.

use std::sync::Arc;

use bytes::Bytes;
use jni::objects::{JObject, JValue};
use jni::refs::Global;
use jni::{Env, JavaVM, jni_sig, jni_str};
use streamfusion_iceberg::{FileAccess, FileSink, RangeRead};

use crate::errors::NativeResult;
use crate::java_ranges::{java_failure, read_range};

/// A Java `TableFiles`.
#[derive(Clone)]
pub struct JavaTableFiles {
    vm: JavaVM,
    files: Arc<Global<JObject<'static>>>,
}

impl std::fmt::Debug for JavaTableFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaTableFiles").finish_non_exhaustive()
    }
}

/// The files of a `TableFiles` object, or `None` for a null one (files opened natively).
pub fn table_files(
    env: &mut Env<'_>,
    files: &JObject<'_>,
) -> NativeResult<Option<Arc<dyn FileAccess>>> {
    if files.is_null() {
        return Ok(None);
    }
    Ok(Some(Arc::new(JavaTableFiles {
        vm: env.get_java_vm()?,
        files: Arc::new(env.new_global_ref(files)?),
    })))
}

impl JavaTableFiles {
    /// Runs `call` with the thread attached; a Java exception comes back as its class and message.
    fn attached<T>(
        &self,
        call: impl FnOnce(&mut Env<'_>) -> jni::errors::Result<T>,
    ) -> Result<T, String> {
        self.vm
            .attach_current_thread(|env| call(env))
            .map_err(|e| java_failure(&e))
    }

    /// A global reference to `object`, an object `TableFiles` returned.
    fn hold(
        env: &mut Env<'_>,
        object: &JObject<'_>,
    ) -> jni::errors::Result<Global<JObject<'static>>> {
        env.new_global_ref(object)
    }
}

impl FileAccess for JavaTableFiles {
    fn open(&self, path: &str) -> Result<Box<dyn RangeRead>, String> {
        let ranges = self.attached(|env| {
            let path = env.new_string(path)?;
            let ranges = env
                .call_method(
                    &*self.files,
                    jni_str!("open"),
                    jni_sig!("(Ljava/lang/String;)Ljava/lang/Object;"),
                    &[JValue::Object(&path)],
                )?
                .l()?;
            Self::hold(env, &ranges)
        })?;
        Ok(Box::new(Ranges {
            vm: self.vm.clone(),
            ranges,
        }))
    }

    fn length(&self, path: &str) -> Result<u64, String> {
        let length = self.attached(|env| {
            let path = env.new_string(path)?;
            env.call_method(
                &*self.files,
                jni_str!("length"),
                jni_sig!("(Ljava/lang/String;)J"),
                &[JValue::Object(&path)],
            )?
            .j()
        })?;
        u64::try_from(length).map_err(|_| format!("{path}: a length of {length} bytes"))
    }

    fn exists(&self, path: &str) -> Result<bool, String> {
        self.attached(|env| {
            let path = env.new_string(path)?;
            env.call_method(
                &*self.files,
                jni_str!("exists"),
                jni_sig!("(Ljava/lang/String;)Z"),
                &[JValue::Object(&path)],
            )?
            .z()
        })
    }

    fn create(&self, path: &str) -> Result<Box<dyn FileSink>, String> {
        let output = self.attached(|env| {
            let path = env.new_string(path)?;
            let output = env
                .call_method(
                    &*self.files,
                    jni_str!("create"),
                    jni_sig!("(Ljava/lang/String;)Ljava/lang/Object;"),
                    &[JValue::Object(&path)],
                )?
                .l()?;
            Self::hold(env, &output)
        })?;
        Ok(Box::new(Output {
            files: self.clone(),
            output,
        }))
    }

    fn delete(&self, path: &str) -> Result<(), String> {
        self.attached(|env| {
            let path = env.new_string(path)?;
            env.call_method(
                &*self.files,
                jni_str!("delete"),
                jni_sig!("(Ljava/lang/String;)V"),
                &[JValue::Object(&path)],
            )?;
            Ok(())
        })
    }
}

/// An open file's ranges (a `TableFiles.Ranges`, read as `java_ranges` reads).
struct Ranges {
    vm: JavaVM,
    ranges: Global<JObject<'static>>,
}

impl RangeRead for Ranges {
    fn read(&self, start: u64, length: usize) -> Result<Bytes, String> {
        read_range(&self.vm, &self.ranges, start, length)
    }
}

/// A file being written: an output `TableFiles.create` returned, written through its `TableFiles`.
struct Output {
    files: JavaTableFiles,
    output: Global<JObject<'static>>,
}

impl FileSink for Output {
    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.is_empty() {
            return Ok(());
        }
        let (source, length) = (bytes.as_ptr().cast_mut(), bytes.len());
        self.files.attached(|env| {
            // SAFETY: `bytes` outlives the call; Java only reads the direct buffer over it.
            let direct = unsafe { env.new_direct_byte_buffer(source, length) }?;
            env.call_method(
                &*self.files.files,
                jni_str!("write"),
                jni_sig!("(Ljava/lang/Object;Ljava/nio/ByteBuffer;)V"),
                &[JValue::Object(&self.output), JValue::Object(&direct)],
            )?;
            Ok(())
        })
    }

    fn close(&mut self) -> Result<(), String> {
        self.files.attached(|env| {
            env.call_method(
                &*self.files.files,
                jni_str!("finish"),
                jni_sig!("(Ljava/lang/Object;)V"),
                &[JValue::Object(&self.output)],
            )?;
            Ok(())
        })
    }
}
