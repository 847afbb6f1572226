package dev.streamfusion.operators;

import dev.streamfusion.testkit.contract.JniContract;
import dev.streamfusion.testkit.contract.PackageLayers;

import org.junit.jupiter.api.Test;

/** The module's written contracts: its native methods and the jni crate agree, its packages layer. */
class ModuleShapeTest {

    @Test
    void everyNativeMethodHasItsFunctionAndEveryFunctionItsMethod() throws Exception {
        JniContract.assertBound("dev.streamfusion.operators");
    }

    @Test
    void packagesFormNoCycleAndTheLeafUsesNoSibling() throws Exception {
        PackageLayers.ofModule()
                .assertAcyclic()
                .assertLeaf("dev.streamfusion.operators.internal", "dev.streamfusion.operators");
    }
}
