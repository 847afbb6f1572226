package dev.streamfusion.parquet.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    /**
     * The predicates among {@code filters} that statistics can decide; the others are left out,
     * as are those on columns other than {@code fileColumns} (the table's columns the files hold:
     * a metadata or partition column's value comes from elsewhere, whatever a file column of its
     * name holds).
     */
    public static ColumnPredicates of(List<ResolvedExpression> filters, Set<String> fileColumns) {
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
            if (args.stream().anyMatch(arg -> arg instanceof FieldReferenceExpression
                    && !fileColumns.contains(((FieldReferenceExpression) arg).getName()))) {
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
            ResolvedExpression literalArg = fieldFirst ? args.get(1) : args.get(0);
            // Only a column against a literal: anything cast, on either side, is left to Flink.
            if (!(fieldArg instanceof FieldReferenceExpression) || !(literalArg instanceof ValueLiteralExpression)) {
                continue;
            }
            FieldReferenceExpression field = (FieldReferenceExpression) fieldArg;
            ValueLiteralExpression literal = (ValueLiteralExpression) literalArg;
            int kind = kind(field.getOutputDataType().getLogicalType());
            // NaN <> x is true in Flink, and statistics leave NaNs out: <> never prunes floats.
            if (kind == 2 && op == 1) {
                continue;
            }
            boolean floatColumn = field.getOutputDataType().getLogicalType().getTypeRoot() == LogicalTypeRoot.FLOAT;
            String[] value = literal.isNull() ? null : value(kind, floatColumn, literal);
            if (value == null) {
                continue;
            }
            columns.add(field.getName());
            ops.add(fieldFirst ? op : FLIPPED[op]);
            kinds.add(Integer.parseInt(value[0]));
            values.add(value[1]);
        }
        return new ColumnPredicates(columns, ops, kinds, values);
    }

    /** 1 for integers, 2 for floating point, 3 for strings, 0 for what statistics do not decide here. */
    private static int kind(LogicalType type) {
        switch (type.getTypeRoot()) {
            case INTEGER:
            case BIGINT:
                return 1;
            case TINYINT:
            case SMALLINT:
                // Read from an INT32 column, whose values (and statistics) may be wider: Flink
                // keeps their low bits, so the statistics do not bound the values.
                return 0;
            case FLOAT:
            case DOUBLE:
                return 2;
            case VARCHAR:
                // CHAR is left out: its values and literals compare with padding rules of their own.
                return 3;
            default:
                return 0;
        }
    }

    /**
     * The literal as the native call compares it with a column of {@code kind}: its kind (1 an
     * integer, compared exactly; 2 a double; 3 a string) and text; or {@code null} when its type
     * does not compare exactly with the column's statistics. Integers compare with integer
     * columns, and with FLOAT and DOUBLE columns when the column's type holds them exactly (Flink
     * compares a FLOAT with an integer as FLOATs: {@code f >= 16777217} holds for 16777216); FLOAT and
     * DOUBLE literals with FLOAT and DOUBLE columns (a FLOAT widened exactly, as Flink compares
     * two FLOATs); strings with VARCHAR columns.
     */
    private static String[] value(int kind, boolean floatColumn, ValueLiteralExpression literal) {
        LogicalType type = literal.getOutputDataType().getLogicalType();
        switch (type.getTypeRoot()) {
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
                Long integer = literal.getValueAs(Number.class).map(Number::longValue).orElse(null);
                if (integer == null) {
                    return null;
                }
                boolean exact = kind == 1 || (kind == 2 && Math.abs(integer) < (floatColumn ? EXACT_FLOATS : EXACT_DOUBLES));
                return exact ? new String[] {"1", String.valueOf(integer)} : null;
            case FLOAT:
            case DOUBLE:
                // A FLOAT's value is a Float, widened exactly.
                return kind == 2
                        ? literal.getValueAs(Number.class).map(n -> new String[] {"2", String.valueOf(n.doubleValue())}).orElse(null)
                        : null;
            case CHAR:
            case VARCHAR:
                return kind == 3 ? literal.getValueAs(String.class).map(v -> new String[] {"3", v}).orElse(null) : null;
            default:
                return null;
        }
    }

    /** Floats below this magnitude hold every integer exactly. */
    private static final long EXACT_FLOATS = 1L << 24;

    /** Doubles below this magnitude hold every integer exactly. */
    private static final long EXACT_DOUBLES = 1L << 53;

    public boolean isEmpty() {
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
