package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/** The type of a stream of {@link ArrowBatch}es of one row type. */
@Internal
public final class ArrowBatchTypeInfo extends TypeInformation<ArrowBatch> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    public ArrowBatchTypeInfo(RowType rowType) {
        this.rowType = rowType;
    }

    public RowType rowType() {
        return rowType;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<ArrowBatch> getTypeClass() {
        return ArrowBatch.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<ArrowBatch> createSerializer(SerializerConfig config) {
        return new ArrowBatchSerializer(rowType);
    }

    @Override
    public String toString() {
        return "ArrowBatch<" + rowType.asSummaryString() + ">";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArrowBatchTypeInfo && rowType.equals(((ArrowBatchTypeInfo) o).rowType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ArrowBatchTypeInfo.class, rowType);
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof ArrowBatchTypeInfo;
    }
}
