package dev.streamfusion.fluss.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import java.util.AbstractMap;
import java.util.List;
import java.util.Map;

/** Reads the filters a query pushes to a Fluss table. */
@Internal
final class FlussFilters {

    private FlussFilters() {}

    /**
     * The column and value of a filter {@code column = literal} (either way round), the value as
     * Flink holds it internally; {@code null} when the filter is anything else, the literal is
     * NULL, or its type is not the column's (a VARCHAR column takes a string literal of any length;
     * a CHAR column, whose values are padded, none).
     */
    static Map.Entry<String, Object> columnEquals(ResolvedExpression filter, RowType tableType) {
        if (!(filter instanceof CallExpression)
                || ((CallExpression) filter).getFunctionDefinition() != BuiltInFunctionDefinitions.EQUALS) {
            return null;
        }
        List<ResolvedExpression> operands = filter.getResolvedChildren();
        if (operands.size() != 2) {
            return null;
        }
        FieldReferenceExpression field = null;
        ValueLiteralExpression literal = null;
        for (ResolvedExpression operand : operands) {
            if (operand instanceof FieldReferenceExpression) {
                field = (FieldReferenceExpression) operand;
            } else if (operand instanceof ValueLiteralExpression) {
                literal = (ValueLiteralExpression) operand;
            }
        }
        if (field == null || literal == null || literal.isNull()) {
            return null;
        }
        int column = tableType.getFieldIndex(field.getName());
        if (column < 0) {
            return null;
        }
        LogicalType columnType = tableType.getTypeAt(column);
        DataType literalType = literal.getOutputDataType();
        boolean strings = columnType.getTypeRoot() == LogicalTypeRoot.VARCHAR
                && literalType.getLogicalType().is(LogicalTypeFamily.CHARACTER_STRING);
        if (!strings && !columnType.copy(true).equals(literalType.getLogicalType().copy(true))) {
            return null;
        }
        Object external = literal.getValueAs(literalType.getConversionClass()).orElse(null);
        if (external == null) {
            return null;
        }
        DataStructureConverter<Object, Object> converter = DataStructureConverters.getConverter(literalType);
        converter.open(FlussFilters.class.getClassLoader());
        Object internal = converter.toInternalOrNull(external);
        return internal == null ? null : new AbstractMap.SimpleImmutableEntry<>(field.getName(), internal);
    }
}
