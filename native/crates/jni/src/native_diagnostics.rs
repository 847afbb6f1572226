//! Natives of `dev.streamfusion.bridge.NativeDiagnostics`: deliberate failures that prove the
//! error mapping end to end (a health check a deployment can run, and what the bridge tests use).

use jni::EnvUnowned;
use jni::objects::{JClass, JString};
use jni::sys::{jint, jlong};

use crate::errors::{NativeError, run};

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_NativeDiagnostics_nativePanic<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    message: JString<'local>,
) {
    run(env, |env| {
        let message = message.try_to_string(env)?;
        panic!("{message}");
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_NativeDiagnostics_nativeFail<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    kind: jint,
    message: JString<'local>,
    position: jlong,
) {
    run(env, |env| {
        let message = message.try_to_string(env)?;
        Err(match kind {
            0 => NativeError::Config(message),
            1 => NativeError::Decode {
                position,
                reason: message,
            },
            2 => NativeError::Io(message),
            _ => NativeError::Arrow(arrow::error::ArrowError::InvalidArgumentError(message)),
        })
    })
}
