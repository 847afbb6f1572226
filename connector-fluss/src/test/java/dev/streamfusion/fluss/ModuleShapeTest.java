package dev.streamfusion.fluss;

import dev.streamfusion.testkit.contract.PackageLayers;

import org.junit.jupiter.api.Test;

/** The module's written contracts: its packages layer. */
class ModuleShapeTest {

    @Test
    void packagesFormNoCycleAndTheLeafUsesNoSibling() throws Exception {
        PackageLayers.ofModule().assertAcyclic().assertLeaf("dev.streamfusion.fluss.internal", "dev.streamfusion.fluss");
    }
}
