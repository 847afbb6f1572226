package dev.streamfusion.iceberg.table;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.types.DataType;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Optional;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.assertj.core.api.Assertions.assertThat;

/** Which Flink filters planning may prune files with: only those Iceberg compares exactly as Flink. */
class IcebergFiltersTest {

    private static final Schema SCHEMA = new Schema(
            optional(1, "id", Types.LongType.get()),
            optional(2, "amount", Types.DecimalType.of(10, 2)),
            optional(3, "ts", Types.TimestampType.withoutZone()),
            optional(4, "tm", Types.TimeType.get()),
            optional(5, "f", Types.FloatType.get()),
            optional(6, "name", Types.StringType.get()));

    private static ResolvedExpression call(BuiltInFunctionDefinition f, ResolvedExpression... args) {
        return CallExpression.permanent(f, List.of(args), DataTypes.BOOLEAN());
    }

    private static FieldReferenceExpression column(String name, DataType type) {
        return new FieldReferenceExpression(name, type, 0, 0);
    }

    private static Optional<Expression> convert(ResolvedExpression filter) {
        return IcebergFilters.convert(filter, SCHEMA, false);
    }

    @Test
    void exactComparisonsConvertAndALiteralFirstFlipsTheOperator() {
        assertThat(convert(call(BuiltInFunctionDefinitions.GREATER_THAN, column("id", DataTypes.BIGINT()), new ValueLiteralExpression(5L))))
                .hasValueSatisfying(e -> assertThat(e.toString()).isEqualTo("ref(name=\"id\") > 5"));
        assertThat(convert(call(BuiltInFunctionDefinitions.LESS_THAN, new ValueLiteralExpression(5L), column("id", DataTypes.BIGINT()))))
                .hasValueSatisfying(e -> assertThat(e.toString()).isEqualTo("ref(name=\"id\") > 5"));
        assertThat(convert(call(BuiltInFunctionDefinitions.EQUALS, column("amount", DataTypes.DECIMAL(10, 2)),
                        new ValueLiteralExpression(new BigDecimal("1.25"), DataTypes.DECIMAL(3, 2).notNull()))))
                .isPresent();
        assertThat(convert(call(BuiltInFunctionDefinitions.AND,
                        call(BuiltInFunctionDefinitions.IS_NOT_NULL, column("name", DataTypes.STRING())),
                        call(BuiltInFunctionDefinitions.EQUALS, column("name", DataTypes.STRING()), new ValueLiteralExpression("x")))))
                .isPresent();
    }

    @Test
    void comparisonsIcebergWouldRoundAreLeftToFlink() {
        // A DOUBLE against a DECIMAL or a FLOAT column is rounded by Iceberg's binding.
        assertThat(convert(call(BuiltInFunctionDefinitions.GREATER_THAN, column("amount", DataTypes.DECIMAL(10, 2)), new ValueLiteralExpression(1.005d))))
                .isEmpty();
        assertThat(convert(call(BuiltInFunctionDefinitions.GREATER_THAN, column("f", DataTypes.FLOAT()), new ValueLiteralExpression(0.1d))))
                .isEmpty();
        // Iceberg's metrics order -0.0 below 0.0, and NaN outside the bounds: a file with bounds
        // [-1.5, -0.0] would be dropped for "f >= 0" though Flink keeps its -0.0.
        assertThat(convert(call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, column("f", DataTypes.FLOAT()),
                        new ValueLiteralExpression(0.0f))))
                .isEmpty();
        assertThat(convert(call(BuiltInFunctionDefinitions.NOT,
                        call(BuiltInFunctionDefinitions.GREATER_THAN, column("f", DataTypes.FLOAT()), new ValueLiteralExpression(1.0f)))))
                .isEmpty();
        // Sub-microsecond timestamps would be cut to microseconds.
        assertThat(convert(call(BuiltInFunctionDefinitions.LESS_THAN, column("ts", DataTypes.TIMESTAMP(9)),
                        new ValueLiteralExpression(LocalDateTime.of(2024, 1, 1, 0, 0, 0, 123_456_789)))))
                .isEmpty();
        assertThat(convert(call(BuiltInFunctionDefinitions.LESS_THAN, column("ts", DataTypes.TIMESTAMP(6)),
                        new ValueLiteralExpression(LocalDateTime.of(2024, 1, 1, 0, 0, 0, 123_456_000)))))
                .isPresent();
        // A table declaring TIMESTAMP(3) over microseconds reads them floored: 00:00:00.0015 is
        // 00:00:00.001 to Flink, while Iceberg's bounds hold the microseconds.
        assertThat(convert(call(BuiltInFunctionDefinitions.EQUALS, column("ts", DataTypes.TIMESTAMP(3)),
                        new ValueLiteralExpression(LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1_000_000)))))
                .isEmpty();
        // Flink reads TIME columns at second precision, Iceberg's bounds hold microseconds.
        assertThat(convert(call(BuiltInFunctionDefinitions.EQUALS, column("tm", DataTypes.TIME(0)), new ValueLiteralExpression(LocalTime.of(10, 0)))))
                .isEmpty();
        // One side that does not convert makes an OR unconvertible.
        assertThat(convert(call(BuiltInFunctionDefinitions.OR,
                        call(BuiltInFunctionDefinitions.EQUALS, column("name", DataTypes.STRING()), new ValueLiteralExpression("x")),
                        call(BuiltInFunctionDefinitions.EQUALS, column("tm", DataTypes.TIME(0)), new ValueLiteralExpression(LocalTime.of(10, 0))))))
                .isEmpty();
    }
}
