//! Natives of `dev.streamfusion.kafka.internal.LibrdkafkaConfig`: whether librdkafka takes a
//! client's translated properties, asked when the job is planned.

use jni::EnvUnowned;
use jni::objects::{JClass, JObjectArray};

use crate::args::strings;
use crate::errors::run;

/// Throws `NativeConfigException` naming the first property librdkafka refuses, and why.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_LibrdkafkaConfig_check<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    keys: JObjectArray<'local>,
    values: JObjectArray<'local>,
) {
    run(env, |env| {
        let keys = strings(env, &keys)?;
        let values = strings(env, &values)?;
        let properties: Vec<(String, String)> = keys.into_iter().zip(values).collect();
        Ok(streamfusion_kafka::check_properties(&properties)?)
    })
}
