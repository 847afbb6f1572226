package dev.streamfusion.iceberg.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalType;

import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Flink filters as Iceberg expressions, for planning to prune the files (and row groups) no row of
 * which can match. Only comparisons of a column with a literal, NULL checks, and AND, OR and NOT of
 * those convert; Flink applies every filter to the rows it reads either way.
 *
 * <p>A comparison converts only when Iceberg compares the literal exactly as Flink does: its type
 * matches the column's without rounding (no DOUBLE against a DECIMAL or FLOAT column, no
 * sub-microsecond timestamp, no TIME column, which Flink reads at a coarser precision than Iceberg
 * stores). Anything else is left to Flink alone, so pruning never drops a file holding a match.
 */
@Internal
final class IcebergFilters {

    private IcebergFilters() {}

    /** The expression {@code filter} converts to over {@code schema}'s columns, if it does. */
    static Optional<Expression> convert(ResolvedExpression filter, Schema schema, boolean caseSensitive) {
        if (!(filter instanceof CallExpression)) {
            return Optional.empty();
        }
        CallExpression call = (CallExpression) filter;
        FunctionDefinition f = call.getFunctionDefinition();
        List<ResolvedExpression> args = call.getResolvedChildren();
        if (f == BuiltInFunctionDefinitions.AND || f == BuiltInFunctionDefinitions.OR) {
            Optional<Expression> left = convert(args.get(0), schema, caseSensitive);
            Optional<Expression> right = convert(args.get(1), schema, caseSensitive);
            if (left.isEmpty() || right.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(f == BuiltInFunctionDefinitions.AND
                    ? Expressions.and(left.get(), right.get())
                    : Expressions.or(left.get(), right.get()));
        }
        if (f == BuiltInFunctionDefinitions.NOT) {
            return convert(args.get(0), schema, caseSensitive).map(Expressions::not);
        }
        if (f == BuiltInFunctionDefinitions.IS_NULL || f == BuiltInFunctionDefinitions.IS_NOT_NULL) {
            if (!(args.get(0) instanceof FieldReferenceExpression)) {
                return Optional.empty();
            }
            String name = ((FieldReferenceExpression) args.get(0)).getName();
            return Optional.of(f == BuiltInFunctionDefinitions.IS_NULL ? Expressions.isNull(name) : Expressions.notNull(name));
        }
        if (args.size() != 2) {
            return Optional.empty();
        }
        boolean columnFirst = args.get(0) instanceof FieldReferenceExpression && args.get(1) instanceof ValueLiteralExpression;
        boolean literalFirst = args.get(1) instanceof FieldReferenceExpression && args.get(0) instanceof ValueLiteralExpression;
        if (!columnFirst && !literalFirst) {
            return Optional.empty();
        }
        FieldReferenceExpression column = (FieldReferenceExpression) args.get(columnFirst ? 0 : 1);
        Types.NestedField field = caseSensitive
                ? schema.findField(column.getName())
                : schema.caseInsensitiveFindField(column.getName());
        if (field == null || !field.type().isPrimitiveType()) {
            return Optional.empty();
        }
        Optional<Object> value = literal((ValueLiteralExpression) args.get(columnFirst ? 1 : 0), field.type());
        if (value.isEmpty()) {
            return Optional.empty();
        }
        String name = column.getName();
        Object v = value.get();
        if (f == BuiltInFunctionDefinitions.EQUALS) {
            return Optional.of(Expressions.equal(name, v));
        }
        if (f == BuiltInFunctionDefinitions.NOT_EQUALS) {
            return Optional.of(Expressions.notEqual(name, v));
        }
        // With the literal first, "5 < x" is "x > 5".
        if (f == BuiltInFunctionDefinitions.LESS_THAN) {
            return Optional.of(columnFirst ? Expressions.lessThan(name, v) : Expressions.greaterThan(name, v));
        }
        if (f == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
            return Optional.of(columnFirst ? Expressions.lessThanOrEqual(name, v) : Expressions.greaterThanOrEqual(name, v));
        }
        if (f == BuiltInFunctionDefinitions.GREATER_THAN) {
            return Optional.of(columnFirst ? Expressions.greaterThan(name, v) : Expressions.lessThan(name, v));
        }
        if (f == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
            return Optional.of(columnFirst ? Expressions.greaterThanOrEqual(name, v) : Expressions.lessThanOrEqual(name, v));
        }
        return Optional.empty();
    }

    /**
     * A literal as Iceberg compares it with a column of {@code column}'s type, when Iceberg's
     * comparison is exactly Flink's.
     */
    private static Optional<Object> literal(ValueLiteralExpression literal, Type column) {
        LogicalType type = literal.getOutputDataType().getLogicalType();
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return column.typeId() == Type.TypeID.BOOLEAN ? literal.getValueAs(Boolean.class).map(v -> v) : Optional.empty();
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
                if (column.typeId() != Type.TypeID.INTEGER && column.typeId() != Type.TypeID.LONG) {
                    return Optional.empty();
                }
                return literal.getValueAs(Number.class).map(Number::longValue);
            case FLOAT:
                if (column.typeId() != Type.TypeID.FLOAT && column.typeId() != Type.TypeID.DOUBLE) {
                    return Optional.empty();
                }
                // NaN compares unlike SQL's NaN in Iceberg's metrics: not converted.
                return literal.getValueAs(Float.class).filter(v -> !v.isNaN()).map(v -> v);
            case DOUBLE:
                if (column.typeId() != Type.TypeID.DOUBLE) {
                    return Optional.empty();
                }
                return literal.getValueAs(Double.class).filter(v -> !v.isNaN()).map(v -> v);
            case CHAR:
            case VARCHAR:
                return column.typeId() == Type.TypeID.STRING ? literal.getValueAs(String.class).map(v -> v) : Optional.empty();
            case DECIMAL:
                if (column.typeId() != Type.TypeID.DECIMAL) {
                    return Optional.empty();
                }
                // A literal of another scale does not bind, and is left to Flink.
                return literal.getValueAs(BigDecimal.class)
                        .filter(v -> v.scale() == ((Types.DecimalType) column).scale())
                        .map(v -> v);
            case DATE:
                return column.typeId() == Type.TypeID.DATE
                        ? literal.getValueAs(LocalDate.class).map(d -> (int) d.toEpochDay())
                        : Optional.empty();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                if (column.typeId() != Type.TypeID.TIMESTAMP || ((Types.TimestampType) column).shouldAdjustToUTC()) {
                    return Optional.empty();
                }
                return literal.getValueAs(LocalDateTime.class)
                        .filter(t -> t.getNano() % 1000 == 0)
                        .map(t -> ChronoUnit.MICROS.between(LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC), t));
            default:
                return Optional.empty();
        }
    }
}
