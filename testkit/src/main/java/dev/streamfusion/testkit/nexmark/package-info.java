/**
 * The Nexmark bid generator for tests and benchmarks. Uses nothing of StreamFusion.
 */
package dev.streamfusion.testkit.nexmark;
