/**
 * The Java side of the native library: loading it, handles to native objects, native errors as
 * Java exceptions, and Arrow batches across the C Data interface. Uses only its subpackages.
 */
package dev.streamfusion.bridge;
