package dev.streamfusion.parquet;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalType;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The table's filters that row-group statistics can decide: {@code column op literal} on a
 * numeric or string column (either way round), and {@code IS [NOT] NULL}. They only prune: a row
 * group is skipped when its statistics prove that no row satisfies them, and Flink still applies
 * every filter to the rows read.
 */
@Internal
public final class ColumnPredicates implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Operator codes of the native call. */
    private static final Map<FunctionDefinition, Integer> OPS =
            Map.of(
                    BuiltInFunctionDefinitions.EQUALS, 0,
                    BuiltInFunctionDefinitions.NOT_EQUALS, 1,
                    BuiltInFunctionDefinitions.LESS_THAN, 2,
                    BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL, 3,
                    BuiltInFunctionDefinitions.GREATER_THAN, 4,
                    BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, 5,
                    BuiltInFunctionDefinitions.IS_NULL, 6,
                    BuiltInFunctionDefinitions.IS_NOT_NULL, 7);

    /** The operator with its operands swapped ({@code 5 < x} is {@code x > 5}). */
    private static final int[] FLIPPED = {0, 1, 4, 5, 2, 3, 6, 7};

    /** No predicates: nothing is pruned. */
    public static final ColumnPredicates NONE = new ColumnPredicates(List.of(), List.of(), List.of(), List.of());

    private final ArrayList<String> columns;
    private final ArrayList<Integer> ops;
    private final ArrayList<Integer> kinds;
    private final ArrayList<String> values;

    private ColumnPredicates(List<String> columns, List<Integer> ops, List<Integer> kinds, List<String> values) {
        this.columns = new ArrayList<>(columns);
        this.ops = new ArrayList<>(ops);
        this.kinds = new ArrayList<>(kinds);
        this.values = new ArrayList<>(values);
    }

    /** The predicates among {@code filters} that statistics can decide; the others are left out. */
    static ColumnPredicates of(List<ResolvedExpression> filters) {
        List<String> columns = new ArrayList<>();
        List<Integer> ops = new ArrayList<>();
        List<Integer> kinds = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (ResolvedExpression filter : filters) {
            if (!(filter instanceof CallExpression)) {
                continue;
            }
            CallExpression call = (CallExpression) filter;
            Integer op = OPS.get(call.getFunctionDefinition());
            List<ResolvedExpression> args = call.getResolvedChildren();
            if (op == null) {
                continue;
            }
            if (args.size() == 1 && args.get(0) instanceof FieldReferenceExpression && op >= 6) {
                columns.add(((FieldReferenceExpression) args.get(0)).getName());
                ops.add(op);
                kinds.add(0);
                values.add("");
                continue;
            }
            if (args.size() != 2 || op >= 6) {
                continue;
            }
            boolean fieldFirst = args.get(0) instanceof FieldReferenceExpression;
            ResolvedExpression fieldArg = fieldFirst ? args.get(0) : args.get(1);
            ResolvedExpression literalArg = uncast(fieldFirst ? args.get(1) : args.get(0));
            if (!(fieldArg instanceof FieldReferenceExpression) || !(literalArg instanceof ValueLiteralExpression)) {
                continue;
            }
            FieldReferenceExpression field = (FieldReferenceExpression) fieldArg;
            ValueLiteralExpression literal = (ValueLiteralExpression) literalArg;
            int kind = kind(field.getOutputDataType().getLogicalType());
            Object raw = literal.isNull() ? null : literal.getValueAs(Object.class).orElse(null);
            String value = null;
            if (kind == 3 && raw instanceof String) {
                value = (String) raw;
            } else if (kind != 3 && raw instanceof Number) {
                // Integral literals compare exactly; others as doubles, where those are exact.
                BigDecimal number = new BigDecimal(raw.toString());
                if (number.stripTrailingZeros().scale() <= 0 && number.toBigInteger().bitLength() < 64) {
                    kind = 1;
                    value = number.toBigInteger().toString();
                } else if (number.abs().compareTo(EXACT_DOUBLES) < 0) {
                    kind = 2;
                    value = String.valueOf(number.doubleValue());
                }
            }
            if (kind == 0 || value == null) {
                continue;
            }
            columns.add(field.getName());
            ops.add(fieldFirst ? op : FLIPPED[op]);
            kinds.add(kind);
            values.add(value);
        }
        return new ColumnPredicates(columns, ops, kinds, values);
    }

    /** 1 for integers, 2 for floating point, 3 for strings, 0 for what statistics do not decide here. */
    private static int kind(LogicalType type) {
        switch (type.getTypeRoot()) {
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
                return 1;
            case FLOAT:
            case DOUBLE:
                return 2;
            case CHAR:
            case VARCHAR:
                return 3;
            default:
                return 0;
        }
    }

    /** The literal under a {@code CAST} the planner put around it, or the expression itself. */
    private static ResolvedExpression uncast(ResolvedExpression expression) {
        if (expression instanceof CallExpression
                && ((CallExpression) expression).getFunctionDefinition() == BuiltInFunctionDefinitions.CAST
                && ((CallExpression) expression).getResolvedChildren().get(0) instanceof ValueLiteralExpression) {
            return ((CallExpression) expression).getResolvedChildren().get(0);
        }
        return expression;
    }

    /** Doubles below this magnitude hold every integer exactly. */
    private static final BigDecimal EXACT_DOUBLES = BigDecimal.valueOf(1L << 53);

    boolean isEmpty() {
        return columns.isEmpty();
    }

    String[] columns() {
        return columns.toArray(new String[0]);
    }

    int[] ops() {
        return ops.stream().mapToInt(Integer::intValue).toArray();
    }

    int[] kinds() {
        return kinds.stream().mapToInt(Integer::intValue).toArray();
    }

    String[] values() {
        return values.toArray(new String[0]);
    }

    @Override
    public String toString() {
        List<String> shown = new ArrayList<>();
        String[] symbols = {"=", "<>", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL"};
        for (int i = 0; i < columns.size(); i++) {
            shown.add(columns.get(i) + " " + symbols[ops.get(i)] + (kinds.get(i) == 0 ? "" : " " + values.get(i)));
        }
        return String.join(" AND ", shown);
    }
}
