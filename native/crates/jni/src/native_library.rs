//! Natives of `dev.streamfusion.bridge.NativeLibrary`: what was loaded, and its memory.

use jni::EnvUnowned;
use jni::objects::{JClass, JString};
use jni::sys::jlong;

use crate::errors::run;

/// The cargo profile this library was built with.
pub const BUILD_PROFILE: &str = if cfg!(debug_assertions) {
    "debug"
} else {
    "release"
};

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_NativeLibrary_buildProfile<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    run(env, |env| Ok(env.new_string(BUILD_PROFILE)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_NativeLibrary_version<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    run(env, |env| Ok(env.new_string(env!("CARGO_PKG_VERSION"))?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_NativeLibrary_allocatedBytes<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> jlong {
    run(env, |_| Ok(crate::ALLOCATOR.outstanding_bytes()))
}
