package dev.streamfusion.testkit.contract;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checks behind each module's ModuleShapeTest fail when they should. */
class ContractChecksTest {

    @Test
    void namesAndSignaturesAreSpelledAsJniSpellsThem() throws Exception {
        assertThat(JniContract.mangle("dev/streamfusion/a_b/C")).isEqualTo("dev_streamfusion_a_1b_C");
        assertThat(JniContract.mangle("Outer$Inner")).isEqualTo("Outer_00024Inner");
        assertThat(JniContract.descriptor(String.class.getMethod("regionMatches", int.class, String.class, int.class, int.class)))
                .isEqualTo("(ILjava/lang/String;II)Z");
        assertThat(JniContract.descriptor(String.class.getMethod("getBytes"))).isEqualTo("()[B");
        assertThat(JniContract.descriptor(Thread.class.getMethod("join", long.class))).isEqualTo("(J)V");
    }

    @Test
    void aCycleAndALeafUsingASiblingAreNamed() {
        PackageLayers cyclic = PackageLayers.of(Map.of(
                "p.table", Set.of("p.source"),
                "p.source", Set.of("p.internal"),
                "p.internal", Set.of("p.table")));
        assertThatThrownBy(cyclic::assertAcyclic).hasMessageContaining("p.internal -> p.table -> p.source -> p.internal");
        assertThatThrownBy(() -> cyclic.assertLeaf("p.internal", "p")).hasMessageContaining("p.internal uses [p.table]");

        PackageLayers layered = PackageLayers.of(Map.of(
                "p.table", Set.of("p.source", "p.internal", "q.bridge"),
                "p.source", Set.of("p.internal"),
                "p.internal", Set.of("q.bridge")));
        layered.assertAcyclic().assertLeaf("p.internal", "p");
        assertThatThrownBy(() -> layered.assertLeaf("p.sink", "p")).hasMessageContaining("No package p.sink");
    }
}
