package dev.streamfusion.iceberg.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Flink filters as Iceberg expressions, for planning to prune the files (and row groups) no row of
 * which can match. Only comparisons of a column with a literal, NULL checks, and AND, OR and NOT of
 * those convert; Flink applies every filter to the rows it reads either way.
 *
 * <p>A comparison converts only when Iceberg compares the literal exactly as Flink does: its type
 * matches the column's without rounding (no DOUBLE against a DECIMAL or FLOAT column, no
 * sub-microsecond timestamp, no TIME column or TIMESTAMP column declared with fewer than six
 * digits, which Flink reads at a coarser precision than Iceberg stores, no FLOAT or DOUBLE
 * column, whose -0.0 and NaN Iceberg orders unlike Flink). Anything else is left to Flink alone,
 * so pruning never drops a file holding a match.
 */
@Internal
final class IcebergFilters {

    /** A LIKE pattern iceberg-flink reads as a prefix: no '_', and one '%' that ends it. */
    private static final Pattern PREFIX = Pattern.compile("([^%_]+)%");

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
            return both(f, args, arg -> convert(arg, schema, caseSensitive));
        }
        if (f == BuiltInFunctionDefinitions.NOT) {
            return convert(args.get(0), schema, caseSensitive).map(Expressions::not);
        }
        if (f == BuiltInFunctionDefinitions.IS_NULL || f == BuiltInFunctionDefinitions.IS_NOT_NULL) {
            return nullCheck(f, args, schema, caseSensitive);
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
        Types.NestedField field = field(column, schema, caseSensitive);
        if (field == null || !field.type().isPrimitiveType() || !readsAsStored(column, field)) {
            return Optional.empty();
        }
        Optional<Object> value = literal((ValueLiteralExpression) args.get(columnFirst ? 1 : 0), field.type());
        if (value.isEmpty()) {
            return Optional.empty();
        }
        return comparison(f, column.getName(), value.get(), columnFirst);
    }

    /**
     * IS NULL or IS NOT NULL ({@code f}) of a column of {@code schema} that reads its stored
     * values as they are (see {@link #readsAsStored}).
     */
    private static Optional<Expression> nullCheck(
            FunctionDefinition f, List<ResolvedExpression> args, Schema schema, boolean caseSensitive) {
        if (args.size() == 1 && args.get(0) instanceof FieldReferenceExpression) {
            FieldReferenceExpression column = (FieldReferenceExpression) args.get(0);
            Types.NestedField field = field(column, schema, caseSensitive);
            if (field != null && field.type().isPrimitiveType() && !readsAsStored(column, field)) {
                return Optional.empty();
            }
        }
        return nullCheck(f, args);
    }

    /** The field of {@code schema} that {@code column} names, or {@code null}. */
    private static Types.NestedField field(FieldReferenceExpression column, Schema schema, boolean caseSensitive) {
        return caseSensitive ? schema.findField(column.getName()) : schema.caseInsensitiveFindField(column.getName());
    }

    /** IS NULL or IS NOT NULL ({@code f}) of a column. */
    private static Optional<Expression> nullCheck(FunctionDefinition f, List<ResolvedExpression> args) {
        if (args.size() != 1 || !(args.get(0) instanceof FieldReferenceExpression)) {
            return Optional.empty();
        }
        String name = ((FieldReferenceExpression) args.get(0)).getName();
        return Optional.of(f == BuiltInFunctionDefinitions.IS_NULL ? Expressions.isNull(name) : Expressions.notNull(name));
    }

    /**
     * Whether {@code column}, declared over the Iceberg field {@code stored}, reads every stored
     * value as it is. Flink compares the values as read, and Iceberg's file bounds
     * and the native reader's row filter the stored ones, so a filter is pushed only where the
     * two are the same. A narrower declaration changes values: TINYINT and SMALLINT keep an
     * integer's low bits (200 reads as -56: "code < 0" would prune its file), a DECIMAL of
     * another scale rounds (1.25 reads as 1.3 at scale 1: "price > 1.26" would prune it), one of
     * fewer digits cannot hold every stored value, and fewer digits of a timestamp than Iceberg's
     * microseconds floor it (00:00:00.0015 reads as 00:00:00.001).
     */
    private static boolean readsAsStored(FieldReferenceExpression column, Types.NestedField stored) {
        LogicalType declared = column.getOutputDataType().getLogicalType();
        switch (declared.getTypeRoot()) {
            case TINYINT:
            case SMALLINT:
                return false;
            case DECIMAL:
                if (!(stored.type() instanceof Types.DecimalType)) {
                    return true;
                }
                Types.DecimalType decimal = (Types.DecimalType) stored.type();
                DecimalType flink = (DecimalType) declared;
                return flink.getScale() == decimal.scale() && flink.getPrecision() >= decimal.precision();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return LogicalTypeChecks.getPrecision(declared) >= 6;
            default:
                return true;
        }
    }

    /** AND or OR ({@code f}) of its two {@code args}, where both convert by {@code converter}. */
    private static Optional<Expression> both(
            FunctionDefinition f, List<ResolvedExpression> args, Function<ResolvedExpression, Optional<Expression>> converter) {
        if (args.size() != 2) {
            return Optional.empty();
        }
        Optional<Expression> left = converter.apply(args.get(0));
        Optional<Expression> right = converter.apply(args.get(1));
        if (left.isEmpty() || right.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(f == BuiltInFunctionDefinitions.AND
                ? Expressions.and(left.get(), right.get())
                : Expressions.or(left.get(), right.get()));
    }

    /**
     * The comparison {@code f} of the column {@code name} with {@code value}, the column first
     * or not, if {@code f} is one.
     */
    private static Optional<Expression> comparison(FunctionDefinition f, String name, Object value, boolean columnFirst) {
        if (f == BuiltInFunctionDefinitions.EQUALS) {
            return Optional.of(Expressions.equal(name, value));
        }
        if (f == BuiltInFunctionDefinitions.NOT_EQUALS) {
            return Optional.of(Expressions.notEqual(name, value));
        }
        // With the literal first, "5 < x" is "x > 5".
        if (f == BuiltInFunctionDefinitions.LESS_THAN) {
            return Optional.of(columnFirst ? Expressions.lessThan(name, value) : Expressions.greaterThan(name, value));
        }
        if (f == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
            return Optional.of(columnFirst ? Expressions.lessThanOrEqual(name, value) : Expressions.greaterThanOrEqual(name, value));
        }
        if (f == BuiltInFunctionDefinitions.GREATER_THAN) {
            return Optional.of(columnFirst ? Expressions.greaterThan(name, value) : Expressions.lessThan(name, value));
        }
        if (f == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
            return Optional.of(columnFirst ? Expressions.greaterThanOrEqual(name, value) : Expressions.lessThanOrEqual(name, value));
        }
        return Optional.empty();
    }

    /**
     * The expression iceberg-flink's readers keep rows by for {@code filter}, if iceberg-flink
     * converts it: a comparison of a column with a literal either way round (against a NaN literal,
     * {@code =} and {@code <>} are NaN checks), a NULL check of a column, AND and OR of two filters
     * that convert, NOT of one, and LIKE of a prefix with no {@code _} followed by one {@code %}.
     * Literals keep the Java values of their own Flink types (dates, times and timestamps as Iceberg
     * holds them); unlike {@link #convert}, nothing is checked against the column, which Iceberg
     * binds later. Its {@code limit} option counts only the rows these expressions keep.
     */
    static Optional<Expression> asIcebergFlinkReads(ResolvedExpression filter) {
        if (!(filter instanceof CallExpression)) {
            return Optional.empty();
        }
        CallExpression call = (CallExpression) filter;
        FunctionDefinition f = call.getFunctionDefinition();
        List<ResolvedExpression> args = call.getResolvedChildren();
        if (f == BuiltInFunctionDefinitions.IS_NULL || f == BuiltInFunctionDefinitions.IS_NOT_NULL) {
            return nullCheck(f, args);
        }
        if (f == BuiltInFunctionDefinitions.NOT) {
            return args.size() == 1 && args.get(0) instanceof CallExpression
                    ? asIcebergFlinkReads(args.get(0)).map(Expressions::not)
                    : Optional.empty();
        }
        if (f == BuiltInFunctionDefinitions.AND || f == BuiltInFunctionDefinitions.OR) {
            return both(f, args, IcebergFilters::asIcebergFlinkReads);
        }
        if (args.size() != 2) {
            return Optional.empty();
        }
        boolean columnFirst = args.get(0) instanceof FieldReferenceExpression && args.get(1) instanceof ValueLiteralExpression;
        boolean literalFirst = args.get(1) instanceof FieldReferenceExpression && args.get(0) instanceof ValueLiteralExpression;
        if (!columnFirst && !(literalFirst && f != BuiltInFunctionDefinitions.LIKE)) {
            return Optional.empty();
        }
        String name = ((FieldReferenceExpression) args.get(columnFirst ? 0 : 1)).getName();
        Optional<Object> literal = readersLiteral((ValueLiteralExpression) args.get(columnFirst ? 1 : 0));
        if (literal.isEmpty()) {
            return Optional.empty();
        }
        Object v = literal.get();
        boolean nan = (v instanceof Double && ((Double) v).isNaN()) || (v instanceof Float && ((Float) v).isNaN());
        if (f == BuiltInFunctionDefinitions.LIKE) {
            Matcher prefix = v instanceof String ? PREFIX.matcher((String) v) : null;
            return prefix != null && prefix.matches() ? Optional.of(Expressions.startsWith(name, prefix.group(1))) : Optional.empty();
        }
        if (nan && f == BuiltInFunctionDefinitions.EQUALS) {
            return Optional.of(Expressions.isNaN(name));
        }
        if (nan && f == BuiltInFunctionDefinitions.NOT_EQUALS) {
            return Optional.of(Expressions.notNaN(name));
        }
        try {
            return comparison(f, name, v, columnFirst);
        } catch (IllegalArgumentException e) {
            // A literal of a type Iceberg has no literal of (a TINYINT's Byte): iceberg-flink fails
            // to plan the query; here the filter is left to Flink and counts nothing.
            return Optional.empty();
        }
    }

    /** {@code literal}'s value as iceberg-flink hands it to Iceberg. */
    private static Optional<Object> readersLiteral(ValueLiteralExpression literal) {
        Class<?> conversion = literal.getOutputDataType().getLogicalType().getDefaultConversion();
        return literal.getValueAs(conversion).map(v -> {
            if (v instanceof LocalDateTime) {
                return DateTimeUtil.microsFromTimestamp((LocalDateTime) v);
            } else if (v instanceof Instant) {
                return DateTimeUtil.microsFromInstant((Instant) v);
            } else if (v instanceof LocalTime) {
                return DateTimeUtil.microsFromTime((LocalTime) v);
            } else if (v instanceof LocalDate) {
                return DateTimeUtil.daysFromDate((LocalDate) v);
            }
            return v;
        });
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
            case DOUBLE:
                // Iceberg's metrics order -0.0 below 0.0 and keep NaN out of a file's bounds, so
                // planning would drop files holding rows Flink's filter keeps (-0.0 for
                // "f >= 0", NaN for "NOT (f > 1)"): floating-point comparisons are not converted.
                return Optional.empty();
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
