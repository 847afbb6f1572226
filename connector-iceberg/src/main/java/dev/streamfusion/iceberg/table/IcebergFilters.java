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
import org.apache.iceberg.expressions.Expressions;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Flink filters as Iceberg expressions, for planning to prune the files (and row groups) no row of
 * which can match. Only comparisons of a column with a literal, NULL checks, and AND, OR and NOT of
 * those convert; Flink applies every filter to the rows it reads either way.
 */
@Internal
final class IcebergFilters {

    private IcebergFilters() {}

    /** The expression {@code filter} converts to, if it does. */
    static Optional<Expression> convert(ResolvedExpression filter) {
        if (!(filter instanceof CallExpression)) {
            return Optional.empty();
        }
        CallExpression call = (CallExpression) filter;
        FunctionDefinition f = call.getFunctionDefinition();
        List<ResolvedExpression> args = call.getResolvedChildren();
        if (f == BuiltInFunctionDefinitions.AND || f == BuiltInFunctionDefinitions.OR) {
            Optional<Expression> left = convert(args.get(0));
            Optional<Expression> right = convert(args.get(1));
            if (left.isEmpty() || right.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(f == BuiltInFunctionDefinitions.AND
                    ? Expressions.and(left.get(), right.get())
                    : Expressions.or(left.get(), right.get()));
        }
        if (f == BuiltInFunctionDefinitions.NOT) {
            return convert(args.get(0)).map(Expressions::not);
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
        Optional<Object> value = literal((ValueLiteralExpression) args.get(columnFirst ? 1 : 0));
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

    /** A literal as Iceberg compares it, for the types whose comparison means the same in both. */
    private static Optional<Object> literal(ValueLiteralExpression literal) {
        LogicalType type = literal.getOutputDataType().getLogicalType();
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return literal.getValueAs(Boolean.class).map(v -> v);
            case TINYINT:
            case SMALLINT:
            case INTEGER:
                return literal.getValueAs(Number.class).map(Number::intValue);
            case BIGINT:
                return literal.getValueAs(Long.class).map(v -> v);
            case FLOAT:
                // NaN compares unlike SQL's NaN in Iceberg's metrics: not converted.
                return literal.getValueAs(Float.class).filter(v -> !v.isNaN()).map(v -> v);
            case DOUBLE:
                return literal.getValueAs(Double.class).filter(v -> !v.isNaN()).map(v -> v);
            case CHAR:
            case VARCHAR:
                return literal.getValueAs(String.class).map(v -> v);
            case DECIMAL:
                return literal.getValueAs(BigDecimal.class).map(v -> v);
            case DATE:
                return literal.getValueAs(LocalDate.class).map(d -> (int) d.toEpochDay());
            case TIME_WITHOUT_TIME_ZONE:
                return literal.getValueAs(LocalTime.class).map(t -> t.toNanoOfDay() / 1000);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return literal.getValueAs(LocalDateTime.class)
                        .map(t -> ChronoUnit.MICROS.between(LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC), t));
            default:
                return Optional.empty();
        }
    }
}
