/** The island's exec nodes: each translates to one transformation of an island operator. */
package dev.streamfusion.operators.exec;
