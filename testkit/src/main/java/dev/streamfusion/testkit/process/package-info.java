/** What the testkit's servers in child JVMs share: classpath, directory, process and log. */
package dev.streamfusion.testkit.process;
