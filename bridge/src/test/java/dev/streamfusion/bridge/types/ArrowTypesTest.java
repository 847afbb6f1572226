package dev.streamfusion.bridge.types;

import dev.streamfusion.bridge.testing.TestSchemas;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArrowTypesTest {

    @Test
    void scalarTypesMapToTheirArrowTypes() {
        assertArrow(DataTypes.BOOLEAN().getLogicalType(), ArrowType.Bool.INSTANCE);
        assertArrow(DataTypes.TINYINT().getLogicalType(), new ArrowType.Int(8, true));
        assertArrow(DataTypes.SMALLINT().getLogicalType(), new ArrowType.Int(16, true));
        assertArrow(DataTypes.INT().getLogicalType(), new ArrowType.Int(32, true));
        assertArrow(DataTypes.BIGINT().getLogicalType(), new ArrowType.Int(64, true));
        assertArrow(DataTypes.FLOAT().getLogicalType(), new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        assertArrow(DataTypes.DOUBLE().getLogicalType(), new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
        assertArrow(DataTypes.DECIMAL(38, 18).getLogicalType(), new ArrowType.Decimal(38, 18, 128));
        assertArrow(DataTypes.CHAR(3).getLogicalType(), ArrowType.Utf8.INSTANCE);
        assertArrow(DataTypes.STRING().getLogicalType(), ArrowType.Utf8.INSTANCE);
        assertArrow(DataTypes.BINARY(3).getLogicalType(), ArrowType.Binary.INSTANCE);
        assertArrow(DataTypes.BYTES().getLogicalType(), ArrowType.Binary.INSTANCE);
        assertArrow(DataTypes.DATE().getLogicalType(), new ArrowType.Date(DateUnit.DAY));
        assertArrow(DataTypes.TIME(0).getLogicalType(), new ArrowType.Time(TimeUnit.MILLISECOND, 32));
        assertArrow(DataTypes.TIME(5).getLogicalType(), new ArrowType.Time(TimeUnit.MICROSECOND, 64));
        assertArrow(DataTypes.TIME(9).getLogicalType(), new ArrowType.Time(TimeUnit.NANOSECOND, 64));
        assertArrow(DataTypes.TIMESTAMP(3).getLogicalType(), new ArrowType.Timestamp(TimeUnit.MILLISECOND, null));
        assertArrow(DataTypes.TIMESTAMP(6).getLogicalType(), new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
        assertArrow(DataTypes.TIMESTAMP(7).getLogicalType(), new ArrowType.Timestamp(TimeUnit.NANOSECOND, null));
        assertArrow(DataTypes.TIMESTAMP_LTZ(0).getLogicalType(), new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC"));
        assertArrow(DataTypes.TIMESTAMP_LTZ(9).getLogicalType(), new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"));
        assertArrow(
                DataTypes.INTERVAL(DataTypes.YEAR(), DataTypes.MONTH()).getLogicalType(),
                new ArrowType.Interval(IntervalUnit.YEAR_MONTH));
        assertArrow(
                DataTypes.INTERVAL(DataTypes.DAY(), DataTypes.SECOND(3)).getLogicalType(),
                new ArrowType.Duration(TimeUnit.MILLISECOND));
    }

    @Test
    void nullabilityAndNestingCarryOver() {
        Field map = ArrowTypes.toArrowField("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT().notNull()).notNull().getLogicalType());
        assertThat(map.isNullable()).isFalse();
        assertThat(map.getType()).isEqualTo(new ArrowType.Map(false));
        Field entries = map.getChildren().get(0);
        assertThat(entries.isNullable()).isFalse();
        assertThat(entries.getChildren().get(0).isNullable()).as("Arrow map keys are never null").isFalse();
        assertThat(entries.getChildren().get(1).isNullable()).isFalse();

        Field multiset = ArrowTypes.toArrowField("ms", DataTypes.MULTISET(DataTypes.INT()).getLogicalType());
        assertThat(multiset.getMetadata()).containsEntry(ArrowTypes.FLINK_TYPE_KEY, "MULTISET");
    }

    @Test
    void aVariantIsItsMetadataAndValueBytesAndNativeCodeRefusesIt() {
        Field variant = ArrowTypes.toArrowField("v", DataTypes.VARIANT().notNull().getLogicalType());
        assertThat(variant.getType()).isEqualTo(ArrowType.Struct.INSTANCE);
        assertThat(variant.isNullable()).isFalse();
        assertThat(variant.getMetadata()).containsEntry(ArrowTypes.FLINK_TYPE_KEY, "VARIANT");
        assertThat(variant.getChildren()).extracting(Field::getName).containsExactly("metadata", "value");
        assertThat(variant.getChildren()).allSatisfy(part -> {
            assertThat(part.getType()).isEqualTo(ArrowType.Binary.INSTANCE);
            assertThat(part.isNullable()).isFalse();
        });

        RowType withVariant = (RowType) DataTypes.ROW(
                        DataTypes.FIELD("id", DataTypes.INT()),
                        DataTypes.FIELD("payload", DataTypes.ROW(DataTypes.FIELD("v", DataTypes.VARIANT()))))
                .getLogicalType();
        assertThat(ArrowTypes.toArrowSchema(withVariant).getFields()).hasSize(2);
        assertThatThrownBy(() -> ArrowTypes.toNativeSchema(withVariant))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("VARIANT column 'payload'");
        RowType without = (RowType) DataTypes.ROW(DataTypes.FIELD("id", DataTypes.INT())).getLogicalType();
        assertThat(ArrowTypes.toNativeSchema(without)).isEqualTo(ArrowTypes.toArrowSchema(without));
    }

    @Test
    void canonicalTypesMapBackExactly() {
        RowType canonical =
                (RowType)
                        DataTypes.ROW(
                                        DataTypes.FIELD("b", DataTypes.BOOLEAN()),
                                        DataTypes.FIELD("d", DataTypes.DECIMAL(38, 4).notNull()),
                                        DataTypes.FIELD("s", DataTypes.STRING()),
                                        DataTypes.FIELD("t", DataTypes.TIME(3)),
                                        DataTypes.FIELD("ts", DataTypes.TIMESTAMP(9)),
                                        DataTypes.FIELD("ltz", DataTypes.TIMESTAMP_LTZ(6)),
                                        DataTypes.FIELD("a", DataTypes.ARRAY(DataTypes.BYTES())),
                                        DataTypes.FIELD("m", DataTypes.MAP(DataTypes.INT().notNull(), DataTypes.DATE())),
                                        DataTypes.FIELD("ms", DataTypes.MULTISET(DataTypes.STRING().notNull())),
                                        DataTypes.FIELD("r", DataTypes.ROW(DataTypes.FIELD("x", DataTypes.BIGINT()))),
                                        DataTypes.FIELD("v", DataTypes.VARIANT()),
                                        DataTypes.FIELD("rv", DataTypes.ROW(DataTypes.FIELD("v", DataTypes.VARIANT().notNull()))))
                                .notNull()
                                .getLogicalType();
        assertThat(ArrowTypes.toRowType(ArrowTypes.toArrowSchema(canonical))).isEqualTo(canonical);
    }

    @Test
    void everyTestSchemaTypeMaps() {
        RowType all = TestSchemas.allTypes();
        assertThat(ArrowTypes.toArrowSchema(all).getFields()).hasSize(all.getFieldCount());
    }

    @Test
    void unsupportedTypesAreRejectedByName() {
        assertThatThrownBy(() -> ArrowTypes.toArrowField("n", DataTypes.NULL().getLogicalType()))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("NULL");
        assertThatThrownBy(() -> ArrowTypes.toArrowField("z", DataTypes.TIMESTAMP_WITH_TIME_ZONE(3).getLogicalType()))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("TIMESTAMP(3) WITH TIME ZONE");
    }

    private static void assertArrow(LogicalType type, ArrowType expected) {
        Field field = ArrowTypes.toArrowField("x", type);
        assertThat(field.getType()).as(type.asSummaryString()).isEqualTo(expected);
        assertThat(field.isNullable()).isTrue();
        assertThat(ArrowTypes.toArrowField("x", type.copy(false)).isNullable()).isFalse();
    }
}
