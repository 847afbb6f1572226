/** Where the island enters the planner: its optimizer program, physical nodes and reports. */
package dev.streamfusion.operators.planner;
