package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which partitions of a partitioned table a query can read rows of, from the query's filters on
 * the partition columns: partitions it can not are never read. A filter is used only where it is
 * understood whole (comparisons, {@code IN}, {@code AND}, {@code OR} and {@code NOT} of a STRING
 * or integer partition column with literals); any other filter keeps every partition, and Flink
 * still applies every filter to the rows read. A partition whose value cannot be read as its
 * column's type is kept.
 */
@Internal
public abstract class PartitionFilter implements Serializable {

    private static final long serialVersionUID = 1L;

    private PartitionFilter() {}

    /** Whether a partition with these values (column name to value, as Fluss names partitions) may hold rows the query reads. */
    public final boolean test(Map<String, String> partition) {
        return value(partition) != Boolean.FALSE;
    }

    /** The filter's value on a partition: {@code null} where a partition's value cannot be read. */
    abstract Boolean value(Map<String, String> partition);

    /**
     * The filter the {@code filters} (a conjunction) make on the {@code partitionKeys} columns of
     * {@code tableType}, or {@code null} when none of them is understood whole.
     */
    public static PartitionFilter of(List<ResolvedExpression> filters, RowType tableType, List<String> partitionKeys) {
        List<PartitionFilter> understood = new ArrayList<>();
        for (ResolvedExpression filter : filters) {
            PartitionFilter converted = of(filter, tableType, partitionKeys);
            if (converted != null) {
                understood.add(converted);
            }
        }
        return allOf(understood);
    }

    /** The filter one query filter makes on the partition columns, or {@code null} when it is not understood whole. */
    public static PartitionFilter of(ResolvedExpression filter, RowType tableType, List<String> partitionKeys) {
        return convert(filter, tableType, Set.copyOf(partitionKeys));
    }

    /** The conjunction of {@code filters}, or {@code null} when there are none. */
    public static PartitionFilter allOf(List<PartitionFilter> filters) {
        return filters.isEmpty() ? null : new Junction(true, filters, render(filters, " AND "));
    }

    private static PartitionFilter convert(ResolvedExpression expression, RowType tableType, Set<String> keys) {
        if (!(expression instanceof CallExpression)) {
            return null;
        }
        FunctionDefinition function = ((CallExpression) expression).getFunctionDefinition();
        List<ResolvedExpression> operands = expression.getResolvedChildren();
        if (function == BuiltInFunctionDefinitions.AND || function == BuiltInFunctionDefinitions.OR) {
            List<PartitionFilter> parts = new ArrayList<>();
            for (ResolvedExpression operand : operands) {
                PartitionFilter part = convert(operand, tableType, keys);
                if (part == null) {
                    return null;
                }
                parts.add(part);
            }
            boolean and = function == BuiltInFunctionDefinitions.AND;
            return new Junction(and, parts, "(" + render(parts, and ? " AND " : " OR ") + ")");
        }
        if (function == BuiltInFunctionDefinitions.NOT && operands.size() == 1) {
            PartitionFilter negated = convert(operands.get(0), tableType, keys);
            return negated == null ? null : new Not(negated);
        }
        if (function == BuiltInFunctionDefinitions.IN) {
            // column IN (a, b, ...) is column = a OR column = b OR ...
            String column = operands.isEmpty() ? null : columnOf(operands.get(0));
            Kind kind = column == null ? null : kind(column, tableType, keys);
            if (kind == null) {
                return null;
            }
            List<PartitionFilter> equals = new ArrayList<>();
            List<String> texts = new ArrayList<>();
            for (ResolvedExpression operand : operands.subList(1, operands.size())) {
                Object value = literal(operand, kind);
                if (value == null) {
                    return null;
                }
                equals.add(new Compare(column, kind, Op.EQ, value));
                texts.add(kind.text(value));
            }
            return new Junction(false, equals, column + " IN (" + String.join(", ", texts) + ")");
        }
        Op op = Op.of(function);
        if (op == null || operands.size() != 2) {
            return null;
        }
        // column op literal, or literal op column (the comparison the other way round).
        int field = columnOf(operands.get(0)) != null ? 0 : 1;
        String column = columnOf(operands.get(field));
        Kind kind = column == null ? null : kind(column, tableType, keys);
        Object value = kind == null ? null : literal(operands.get(1 - field), kind);
        return value == null ? null : new Compare(column, kind, field == 0 ? op : op.flipped(), value);
    }

    /** The column an operand names, or {@code null} when it is not a column. */
    private static String columnOf(ResolvedExpression operand) {
        return operand instanceof FieldReferenceExpression ? ((FieldReferenceExpression) operand).getName() : null;
    }

    private static Kind kind(String column, RowType tableType, Set<String> keys) {
        int index = tableType.getFieldIndex(column);
        if (!keys.contains(column) || index < 0) {
            return null;
        }
        LogicalType type = tableType.getTypeAt(index);
        if (type.getTypeRoot() == LogicalTypeRoot.VARCHAR) {
            return Kind.STRING;
        }
        return type.is(LogicalTypeFamily.INTEGER_NUMERIC) ? Kind.INTEGER : null;
    }

    /** A literal operand as a value of {@code kind}, or {@code null}. */
    private static Object literal(ResolvedExpression operand, Kind kind) {
        if (!(operand instanceof ValueLiteralExpression) || ((ValueLiteralExpression) operand).isNull()) {
            return null;
        }
        ValueLiteralExpression literal = (ValueLiteralExpression) operand;
        LogicalType type = literal.getOutputDataType().getLogicalType();
        if (kind == Kind.STRING && type.is(LogicalTypeFamily.CHARACTER_STRING)) {
            return literal.getValueAs(String.class).orElse(null);
        }
        if (kind == Kind.INTEGER && type.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
            return literal.getValueAs(Number.class).map(n -> (Object) n.longValue()).orElse(null);
        }
        return null;
    }

    private static String render(List<PartitionFilter> parts, String separator) {
        List<String> texts = new ArrayList<>();
        parts.forEach(p -> texts.add(p.toString()));
        return String.join(separator, texts);
    }

    /** The types of partition column whose values are read: STRING (VARCHAR) and integers. */
    private enum Kind {
        STRING,
        INTEGER;

        /** A partition's value of this kind (a String or a Long), or {@code null} where it cannot be read so. */
        Object read(String value) {
            if (value == null || this == STRING) {
                return value;
            }
            try {
                return Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }

        /** A value of this kind as SQL writes it. */
        String text(Object value) {
            return this == STRING ? "'" + value + "'" : String.valueOf(value);
        }

        /** Compares two values of this kind as Flink does: strings by their UTF-8 bytes (code points), integers by value. */
        int compare(Object a, Object b) {
            return this == STRING
                    ? Arrays.compareUnsigned(((String) a).getBytes(StandardCharsets.UTF_8), ((String) b).getBytes(StandardCharsets.UTF_8))
                    : Long.compare((Long) a, (Long) b);
        }
    }

    private enum Op {
        EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");

        final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        static Op of(FunctionDefinition function) {
            if (!(function instanceof BuiltInFunctionDefinition)) {
                return null;
            }
            if (function == BuiltInFunctionDefinitions.EQUALS) {
                return EQ;
            } else if (function == BuiltInFunctionDefinitions.NOT_EQUALS) {
                return NE;
            } else if (function == BuiltInFunctionDefinitions.LESS_THAN) {
                return LT;
            } else if (function == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
                return LE;
            } else if (function == BuiltInFunctionDefinitions.GREATER_THAN) {
                return GT;
            } else if (function == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
                return GE;
            }
            return null;
        }

        Op flipped() {
            switch (this) {
                case LT:
                    return GT;
                case LE:
                    return GE;
                case GT:
                    return LT;
                case GE:
                    return LE;
                default:
                    return this;
            }
        }

        boolean holds(int comparison) {
            switch (this) {
                case EQ:
                    return comparison == 0;
                case NE:
                    return comparison != 0;
                case LT:
                    return comparison < 0;
                case LE:
                    return comparison <= 0;
                case GT:
                    return comparison > 0;
                default:
                    return comparison >= 0;
            }
        }
    }

    private static final class Compare extends PartitionFilter {
        private static final long serialVersionUID = 1L;

        private final String column;
        private final Kind kind;
        private final Op op;
        private final Object value;

        Compare(String column, Kind kind, Op op, Object value) {
            this.column = column;
            this.kind = kind;
            this.op = op;
            this.value = value;
        }

        @Override
        Boolean value(Map<String, String> partition) {
            Object actual = kind.read(partition.get(column));
            return actual == null ? null : op.holds(kind.compare(actual, value));
        }

        @Override
        public String toString() {
            return column + " " + op.symbol + " " + kind.text(value);
        }
    }

    /** AND or OR, in SQL's three-valued logic ({@code null}: unknown). */
    private static final class Junction extends PartitionFilter {
        private static final long serialVersionUID = 1L;

        private final boolean and;
        private final List<PartitionFilter> parts;
        private final String text;

        Junction(boolean and, List<PartitionFilter> parts, String text) {
            this.and = and;
            this.parts = List.copyOf(parts);
            this.text = text;
        }

        @Override
        Boolean value(Map<String, String> partition) {
            boolean unknown = false;
            for (PartitionFilter part : parts) {
                Boolean value = part.value(partition);
                if (value == null) {
                    unknown = true;
                } else if (value != and) {
                    return value;
                }
            }
            return unknown ? null : and;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    private static final class Not extends PartitionFilter {
        private static final long serialVersionUID = 1L;

        private final PartitionFilter negated;

        Not(PartitionFilter negated) {
            this.negated = negated;
        }

        @Override
        Boolean value(Map<String, String> partition) {
            Boolean value = negated.value(partition);
            return value == null ? null : !value;
        }

        @Override
        public String toString() {
            return "NOT " + negated;
        }
    }
}
