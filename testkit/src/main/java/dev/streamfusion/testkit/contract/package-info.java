/**
 * Checks of a module's written contracts: native methods against the jni crate, and package
 * layering. Uses nothing of StreamFusion.
 */
package dev.streamfusion.testkit.contract;
