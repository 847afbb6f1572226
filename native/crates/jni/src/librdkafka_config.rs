//! Natives of `dev.streamfusion.kafka.internal.LibrdkafkaConfig`: whether librdkafka takes a
//! client's translated properties, asked when the job is planned.

use jni::EnvUnowned;
use jni::objects::{JClass, JObject, JString};
use jni::sys::jstring;

use crate::errors::run;

/// Why librdkafka refuses the property `key` = `value`, or null when it takes it.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_LibrdkafkaConfig_refusal<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    key: JString<'local>,
    value: JString<'local>,
) -> jstring {
    run(env, |env| {
        let key = key.try_to_string(env)?;
        let value = value.try_to_string(env)?;
        Ok(match streamfusion_kafka::property_refusal(&key, &value) {
            Some(reason) => env.new_string(reason)?.into_raw(),
            None => JObject::null().into_raw(),
        })
    })
}
