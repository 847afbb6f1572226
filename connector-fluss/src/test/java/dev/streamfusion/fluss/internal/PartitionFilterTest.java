package dev.streamfusion.fluss.internal;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which partitions a query's filters leave to read. */
class PartitionFilterTest {

    private static final RowType TABLE =
            (RowType) DataTypes.ROW(DataTypes.FIELD("id", DataTypes.INT()), DataTypes.FIELD("dt", DataTypes.STRING()),
                    DataTypes.FIELD("h", DataTypes.INT()), DataTypes.FIELD("c", DataTypes.CHAR(2))).getLogicalType();
    private static final List<String> KEYS = List.of("dt", "h", "c");

    private static final FieldReferenceExpression ID = new FieldReferenceExpression("id", DataTypes.INT(), 0, 0);
    private static final FieldReferenceExpression DT = new FieldReferenceExpression("dt", DataTypes.STRING(), 0, 1);
    private static final FieldReferenceExpression H = new FieldReferenceExpression("h", DataTypes.INT(), 0, 2);
    private static final FieldReferenceExpression C = new FieldReferenceExpression("c", DataTypes.CHAR(2), 0, 3);

    private static ResolvedExpression call(BuiltInFunctionDefinition function, ResolvedExpression... operands) {
        return CallExpression.permanent(function, Arrays.asList(operands), DataTypes.BOOLEAN());
    }

    private static ValueLiteralExpression lit(Object value) {
        return new ValueLiteralExpression(value);
    }

    private static Map<String, String> partition(String dt, String h) {
        return Map.of("dt", dt, "h", h, "c", "x");
    }

    @Test
    void comparisonsOnPartitionColumnsRuleOutPartitions() throws Exception {
        PartitionFilter filter = PartitionFilter.of(List.of(
                call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, DT, lit("2026-02")),
                call(BuiltInFunctionDefinitions.OR, call(BuiltInFunctionDefinitions.LESS_THAN, lit(5), H),
                        call(BuiltInFunctionDefinitions.EQUALS, H, lit(1)))), TABLE, KEYS);
        assertThat(filter).hasToString("dt >= '2026-02' AND (h > 5 OR h = 1)");
        assertThat(filter.test(partition("2026-02", "7"))).isTrue();
        assertThat(filter.test(partition("2026-03", "1"))).isTrue();
        assertThat(filter.test(partition("2026-01", "7"))).isFalse();
        assertThat(filter.test(partition("2026-02", "3"))).isFalse();
        // Integers compare by value, not as text.
        assertThat(filter.test(partition("2026-02", "10"))).isTrue();
        // Shipped with the source to the job.
        PartitionFilter copied = InstantiationUtil.clone(filter);
        assertThat(copied.test(partition("2026-02", "3"))).isFalse();
        assertThat(copied.test(partition("2026-02", "6"))).isTrue();
    }

    @Test
    void inNotAndNotEqualFollowSqlsLogic() {
        PartitionFilter in = PartitionFilter.of(List.of(call(BuiltInFunctionDefinitions.IN, DT, lit("a"), lit("b"))), TABLE, KEYS);
        assertThat(in.test(partition("a", "0"))).isTrue();
        assertThat(in.test(partition("c", "0"))).isFalse();
        PartitionFilter not = PartitionFilter.of(List.of(call(BuiltInFunctionDefinitions.NOT,
                call(BuiltInFunctionDefinitions.NOT_EQUALS, H, lit(2)))), TABLE, KEYS);
        assertThat(not.test(partition("a", "2"))).isTrue();
        assertThat(not.test(partition("a", "3"))).isFalse();
        // A value that is not the column's type is unknown: the partition is kept, even under NOT.
        assertThat(not.test(partition("a", "two"))).isTrue();
        // Strings compare as Flink compares them: by code point ('\uFF01' sorts before U+1F600 there, after it in UTF-16).
        PartitionFilter below = PartitionFilter.of(List.of(call(BuiltInFunctionDefinitions.LESS_THAN, DT, lit("\uD83D\uDE00"))),
                TABLE, KEYS);
        assertThat(below.test(partition("\uFF01", "0"))).isTrue();
    }

    @Test
    void filtersNotUnderstoodWholeKeepEveryPartition() {
        // A data column, a CHAR partition column, and a disjunction with a data column.
        assertThat(PartitionFilter.of(List.of(call(BuiltInFunctionDefinitions.EQUALS, ID, lit(1)),
                call(BuiltInFunctionDefinitions.EQUALS, C, lit("x")),
                call(BuiltInFunctionDefinitions.OR, call(BuiltInFunctionDefinitions.EQUALS, DT, lit("a")),
                        call(BuiltInFunctionDefinitions.EQUALS, ID, lit(2)))), TABLE, KEYS)).isNull();
        // Understood conjuncts still rule partitions out beside those that are not.
        PartitionFilter some = PartitionFilter.of(List.of(call(BuiltInFunctionDefinitions.EQUALS, ID, lit(1)),
                call(BuiltInFunctionDefinitions.EQUALS, DT, lit("a"))), TABLE, KEYS);
        assertThat(some).hasToString("dt = 'a'");
        assertThat(some.test(partition("b", "0"))).isFalse();
    }
}
