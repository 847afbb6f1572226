//! Upcalls into `java.lang.String` for the native calc: the text functions whose Java result no
//! table of ours can give (see `JavaText` in the operators crate).

use jni::objects::JString;
use jni::{Env, jni_sig, jni_str};
use streamfusion_operators::calc::JavaText;

use crate::java_ranges::java_failure;

/// The JVM that called the calc, asked on the calling thread.
pub(crate) struct CallingJvm<'a, 'local> {
    pub(crate) env: &'a Env<'local>,
}

impl JavaText for CallingJvm<'_, '_> {
    fn to_lower_case(&self, text: &str) -> Result<String, String> {
        self.env
            .with_local_frame(4, |env| {
                let text = env.new_string(text)?;
                let lowered = env
                    .call_method(
                        &text,
                        jni_str!("toLowerCase"),
                        jni_sig!("()Ljava/lang/String;"),
                        &[],
                    )?
                    .l()?;
                env.cast_local::<JString>(lowered)?.try_to_string(env)
            })
            .map_err(|e| java_failure(&e))
    }
}
