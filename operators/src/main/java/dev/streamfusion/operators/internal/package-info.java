/** Native handles of the island's operators; uses nothing else of the module. */
package dev.streamfusion.operators.internal;
