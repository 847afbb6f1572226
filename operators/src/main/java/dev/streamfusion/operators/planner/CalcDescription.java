package dev.streamfusion.operators.planner;

import org.apache.flink.annotation.Internal;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexLocalRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;

import java.util.List;
import java.util.Map;

/**
 * A {@code Calc}'s program as the native calc reads it ({@code crates/operators/src/calc.rs}), or
 * the reason it cannot be: only expressions the native kernels evaluate exactly as Flink's
 * generated code does are described, and integer operands of different widths are widened
 * explicitly, as Java's binary numeric promotion does.
 */
@Internal
final class CalcDescription {

    /** Why an expression is not evaluated natively. */
    static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String reason) {
            super(reason, null, false, false);
        }
    }

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private static final Map<SqlKind, String> COMPARISONS =
            Map.of(
                    SqlKind.EQUALS, "EQUALS",
                    SqlKind.NOT_EQUALS, "NOT_EQUALS",
                    SqlKind.LESS_THAN, "LESS_THAN",
                    SqlKind.LESS_THAN_OR_EQUAL, "LESS_THAN_OR_EQUAL",
                    SqlKind.GREATER_THAN, "GREATER_THAN",
                    SqlKind.GREATER_THAN_OR_EQUAL, "GREATER_THAN_OR_EQUAL");

    private static final Map<SqlKind, String> ARITHMETIC =
            Map.of(SqlKind.PLUS, "PLUS", SqlKind.MINUS, "MINUS", SqlKind.TIMES, "TIMES");

    private final RexProgram program;
    private final RexBuilder rexBuilder;

    private CalcDescription(RexProgram program, RexBuilder rexBuilder) {
        this.program = program;
        this.rexBuilder = rexBuilder;
    }

    /** The JSON description of {@code program}. */
    static String describe(RexProgram program, List<String> outputNames, RexBuilder rexBuilder) throws Unsupported {
        return new CalcDescription(program, rexBuilder).describe(outputNames);
    }

    /** {@code ref} as an expression tree over the input, with {@code SEARCH} as comparisons. */
    private RexNode expand(RexLocalRef ref) {
        return RexUtil.expandSearch(rexBuilder, null, program.expandLocalRef(ref));
    }

    private String describe(List<String> outputNames) throws Unsupported {
        ObjectNode spec = JSON.objectNode();
        RexLocalRef condition = program.getCondition();
        if (condition == null) {
            spec.putNull("filter");
        } else {
            spec.set("filter", expression(expand(condition)));
        }
        ArrayNode projections = spec.putArray("projections");
        for (RexLocalRef projection : program.getProjectList()) {
            projections.add(expression(expand(projection)));
        }
        ArrayNode names = spec.putArray("names");
        outputNames.forEach(names::add);
        return spec.toString();
    }

    private ObjectNode expression(RexNode node) throws Unsupported {
        if (node instanceof RexInputRef) {
            return JSON.objectNode().put("kind", "column").put("index", ((RexInputRef) node).getIndex());
        }
        if (node instanceof RexLiteral) {
            RexLiteral literal = (RexLiteral) node;
            return literal(literal, sqlType(literal.getType()));
        }
        if (node instanceof RexCall) {
            return call((RexCall) node);
        }
        throw new Unsupported("the expression " + node + " is not evaluated natively");
    }

    private ObjectNode call(RexCall call) throws Unsupported {
        SqlKind kind = call.getKind();
        List<RexNode> operands = call.getOperands();
        if (COMPARISONS.containsKey(kind)) {
            String common = commonType(call, operands.get(0).getType(), operands.get(1).getType());
            if (common.equals("FLOAT") || common.equals("DOUBLE")) {
                throw new Unsupported(call + ": comparisons of floating-point values are not evaluated natively (NaN)");
            }
            return op(COMPARISONS.get(kind), as(operands.get(0), common), as(operands.get(1), common));
        }
        switch (kind) {
            case AND:
            case OR:
                ObjectNode folded = expression(operands.get(0));
                for (int i = 1; i < operands.size(); i++) {
                    folded = op(kind.name(), folded, expression(operands.get(i)));
                }
                return folded;
            case NOT:
                return op("NOT", expression(operands.get(0)));
            case IS_NULL:
                return op("IS_NULL", expression(operands.get(0)));
            case IS_NOT_NULL:
                return op("IS_NOT_NULL", expression(operands.get(0)));
            case IS_TRUE:
            case IS_FALSE:
            case IS_NOT_TRUE:
            case IS_NOT_FALSE:
                return op(kind.name(), expression(operands.get(0)));
            case CASE:
                return choice(call, "CASE");
            case COALESCE:
                return choice(call, "COALESCE");
            case PLUS:
            case MINUS:
            case TIMES:
                {
                    String result = sqlType(call.getType());
                    if (!isNumber(result)) {
                        throw new Unsupported(call + ": arithmetic of type " + call.getType() + " is not evaluated natively");
                    }
                    return op(ARITHMETIC.get(kind), as(operands.get(0), result), as(operands.get(1), result));
                }
            case MOD:
                return mod(call);
            case CAST:
                {
                    String to = sqlType(call.getType());
                    String from = sqlType(operands.get(0).getType());
                    if (!isInteger(from) || !(isNumber(to) && (!isInteger(to) || width(from) <= width(to)))) {
                        throw new Unsupported(call + ": only widening casts of integers are evaluated natively");
                    }
                    return cast(expression(operands.get(0)), to, false);
                }
            default:
                // Flink's own COALESCE is a function of its own kind, not Calcite's.
                if (call.getOperator().getName().equalsIgnoreCase("COALESCE")) {
                    return choice(call, "COALESCE");
                }
                throw new Unsupported("the function " + call.getOperator().getName() + " is not evaluated natively");
        }
    }

    /**
     * {@code CASE} (conditions and values, then the ELSE value) or {@code COALESCE}: values in the
     * call's type, which must not be CHAR (Flink pads CHAR values to one length).
     */
    private ObjectNode choice(RexCall call, String op) throws Unsupported {
        if (call.getType().getSqlTypeName() == SqlTypeName.CHAR) {
            throw new Unsupported(call + ": " + op + " of CHAR values (Flink pads them to one length) is not evaluated natively");
        }
        String result = sqlType(call.getType());
        List<RexNode> operands = call.getOperands();
        ObjectNode[] args = new ObjectNode[operands.size()];
        for (int i = 0; i < operands.size(); i++) {
            boolean condition = op.equals("CASE") && i % 2 == 0 && i + 1 < operands.size();
            args[i] = condition ? expression(operands.get(i)) : as(operands.get(i), result);
        }
        return op(op, args);
    }

    /**
     * {@code MOD} by a constant other than 0 and -1 (so it never fails): computed in the wider
     * operand type and narrowed to the result type, which is exact because the remainder is
     * smaller than the divisor.
     */
    private ObjectNode mod(RexCall call) throws Unsupported {
        RexNode divisor = call.getOperands().get(1);
        if (!(divisor instanceof RexLiteral)) {
            throw new Unsupported(call + ": MOD is evaluated natively only by a constant");
        }
        Long value = ((RexLiteral) divisor).getValueAs(Long.class);
        if (value == null || value == 0 || value == -1) {
            throw new Unsupported(call + ": MOD is evaluated natively only by a constant other than 0 and -1");
        }
        String common = commonType(call, call.getOperands().get(0).getType(), divisor.getType());
        String result = sqlType(call.getType());
        if (!isInteger(common) || !isInteger(result)) {
            throw new Unsupported(call + ": MOD is evaluated natively only on integers");
        }
        ObjectNode mod = op("MOD", as(call.getOperands().get(0), common), as(divisor, common));
        return result.equals(common) ? mod : cast(mod, result, true);
    }

    /** The type both operands are compared or combined in, as Java promotes them. */
    private static String commonType(RexCall call, RelDataType left, RelDataType right) throws Unsupported {
        String a = sqlType(left);
        String b = sqlType(right);
        if (a.equals(b)) {
            return a;
        }
        if (isNumber(a) && isNumber(b)) {
            if (isInteger(a) && isInteger(b)) {
                return width(a) >= width(b) ? a : b;
            }
            return a.equals("DOUBLE") || b.equals("DOUBLE") ? "DOUBLE" : "FLOAT";
        }
        throw new Unsupported(call + ": operands of types " + left + " and " + right + " are not combined natively");
    }

    /** {@code node} in type {@code type}: literals retyped, other integers widened by a cast. */
    private ObjectNode as(RexNode node, String type) throws Unsupported {
        String own = sqlType(node.getType());
        if (own.equals(type)) {
            return expression(node);
        }
        if (node instanceof RexLiteral && isInteger(own) && isInteger(type)) {
            return literal((RexLiteral) node, type);
        }
        if (isInteger(own) && isNumber(type) && (!isInteger(type) || width(own) <= width(type))) {
            return cast(expression(node), type, false);
        }
        throw new Unsupported(node + " of type " + node.getType() + " is not converted to " + type + " natively");
    }

    private static ObjectNode literal(RexLiteral literal, String type) throws Unsupported {
        ObjectNode node = JSON.objectNode().put("kind", "literal").put("type", type);
        if (literal.isNull()) {
            return node.putNull("value");
        }
        String text;
        if (isInteger(type)) {
            text = String.valueOf(literal.getValueAs(Long.class));
        } else if (type.equals("DOUBLE") || type.equals("FLOAT")) {
            text = String.valueOf(literal.getValueAs(Double.class));
        } else if (type.equals("BOOLEAN")) {
            text = String.valueOf(literal.getValueAs(Boolean.class));
        } else {
            text = literal.getValueAs(String.class);
        }
        return node.put("value", text);
    }

    private static ObjectNode cast(ObjectNode input, String type, boolean exact) {
        ObjectNode node = JSON.objectNode().put("kind", "cast").put("type", type);
        node.set("input", input);
        return exact ? node.put("exact", true) : node;
    }

    private static ObjectNode op(String op, ObjectNode... args) {
        ObjectNode node = JSON.objectNode().put("kind", "call").put("op", op);
        ArrayNode list = node.putArray("args");
        for (ObjectNode arg : args) {
            list.add(arg);
        }
        return node;
    }

    /** Flink's name of a type the native calc computes with. */
    private static String sqlType(RelDataType type) throws Unsupported {
        SqlTypeName name = type.getSqlTypeName();
        switch (name) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
                return name.name();
            case INTEGER:
                return "INT";
            case REAL:
                return "FLOAT";
            case VARCHAR:
                return "STRING";
            case CHAR:
                // String literals are CHAR(n); Flink compares them with VARCHAR values unpadded.
                return "STRING";
            default:
                throw new Unsupported("values of type " + type + " are not computed natively");
        }
    }

    private static boolean isInteger(String type) {
        return width(type) > 0;
    }

    private static boolean isNumber(String type) {
        return isInteger(type) || type.equals("FLOAT") || type.equals("DOUBLE");
    }

    private static int width(String type) {
        switch (type) {
            case "TINYINT":
                return 1;
            case "SMALLINT":
                return 2;
            case "INT":
                return 3;
            case "BIGINT":
                return 4;
            default:
                return 0;
        }
    }
}
