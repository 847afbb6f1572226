/** The operator island's entry points: {@link dev.streamfusion.operators.StreamFusion}. */
package dev.streamfusion.operators;
