package dev.streamfusion.operators.planner;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.planner.functions.bridging.BridgingSqlFunction;
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
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlTrimFunction;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.Sarg;

import java.math.BigDecimal;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

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

        private final String admit;

        Unsupported(String reason) {
            this(reason, null);
        }

        /** {@code admit}: what in the query would be evaluated natively instead. */
        Unsupported(String reason, String admit) {
            super(reason, null, false, false);
            this.admit = admit;
        }

        /** What in the query would be evaluated natively instead, if anything. */
        String admit() {
            return admit;
        }
    }

    /** The functions the native calc evaluates (besides operators, CASE, CAST and EXTRACT). */
    static final String FUNCTIONS =
            "||, CONCAT, LOWER, UPPER, CHAR_LENGTH, REGEXP_EXTRACT, SPLIT_INDEX, SUBSTRING, DATE_FORMAT, COALESCE, LIKE, TRIM, "
                    + "LTRIM, RTRIM, REPLACE, ABS, IF";

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

    /** The fields {@code EXTRACT} reads natively from a {@code TIMESTAMP}. */
    private static final Set<TimeUnitRange> EXTRACTED =
            EnumSet.of(
                    TimeUnitRange.YEAR,
                    TimeUnitRange.MONTH,
                    TimeUnitRange.DAY,
                    TimeUnitRange.HOUR,
                    TimeUnitRange.MINUTE,
                    TimeUnitRange.SECOND);

    /**
     * The languages whose case rules differ from Unicode's default ones, which the native LOWER
     * and UPPER apply (Flink's follow the JVM's default locale).
     */
    private static final Set<String> LOCALE_CASE_RULES = Set.of("tr", "az", "lt");

    /**
     * Whether this JVM cases letters by Unicode 13.0, as Java 15 to 17 do and the native UPPER
     * and LOWER do: it has Unicode 13's U+A7C7 (lower case U+A7C8) but not Unicode 14's U+2C2F
     * (lower case U+2C5F, which earlier JVMs leave as it is).
     */
    private static final boolean JAVA_CASE_TABLE_IS_UNICODE_13 =
            Character.toLowerCase(0xA7C7) == 0xA7C8 && Character.toLowerCase(0x2C2F) == 0x2C2F;

    /** The widest DECIMAL Flink has. */
    private static final int MAX_PRECISION = 38;

    private final RexProgram program;
    private final RexBuilder rexBuilder;
    /**
     * {@code table.exec.legacy-cast-behaviour} is enabled: a CAST that fails gives NULL in Flink,
     * where the native calc fails as Flink does without it.
     */
    private final boolean legacyCasts;

    private CalcDescription(RexProgram program, RexBuilder rexBuilder, boolean legacyCasts) {
        this.program = program;
        this.rexBuilder = rexBuilder;
        this.legacyCasts = legacyCasts;
    }

    /**
     * The JSON description of {@code program}; {@code legacyCasts}: whether the job's {@code
     * table.exec.legacy-cast-behaviour} is enabled.
     */
    static String describe(RexProgram program, List<String> outputNames, RexBuilder rexBuilder, boolean legacyCasts)
            throws Unsupported {
        return new CalcDescription(program, rexBuilder, legacyCasts).describe(outputNames);
    }

    /** {@code ref} as an expression tree over the input, with {@code SEARCH} as comparisons. */
    private RexNode expand(RexLocalRef ref) throws Unsupported {
        RexNode expression = program.expandLocalRef(ref);
        RexCall floatingSet = floatingPointSet(expression);
        if (floatingSet != null) {
            // Flink looks a FLOAT or DOUBLE up in a hash set of the values, by their bits: -0.0 is
            // not 0.0 there and NaN is NaN, unlike in the comparisons the search expands into.
            throw new Unsupported(floatingSet + ": a FLOAT or DOUBLE tested against a set of values is not evaluated "
                    + "natively", "a comparison with each value, or the values as DECIMALs");
        }
        RexCall parsedSet = parsedDecimalSet(expression);
        if (parsedSet != null) {
            // Flink casts the value searched for to the set's type, which makes a DECIMAL parsed
            // from text with more digits than its precision NULL; the comparisons would not.
            throw new Unsupported(parsedSet + ": a DECIMAL parsed from text tested against a set of values is not "
                    + "evaluated natively", "a comparison with each value");
        }
        return RexUtil.expandSearch(rexBuilder, null, expression);
    }

    /** The first search in {@code expression} of a DECIMAL computed from a text cast, or null. */
    private static RexCall parsedDecimalSet(RexNode expression) {
        return firstCall(expression, call -> call.getKind() == SqlKind.SEARCH
                && call.getOperands().get(0).getType().getSqlTypeName() == SqlTypeName.DECIMAL
                && firstCall(call.getOperands().get(0), CalcDescription::parsesText) != null);
    }

    /** Whether {@code call} casts text to a number. */
    private static boolean parsesText(RexCall call) {
        return call.getKind() == SqlKind.CAST
                && SqlTypeFamily.CHARACTER.contains(call.getOperands().get(0).getType())
                && !SqlTypeFamily.CHARACTER.contains(call.getType());
    }

    /** The first search of a FLOAT or DOUBLE (or for FLOATs or DOUBLEs) for a set of points in {@code expression}, or null. */
    private static RexCall floatingPointSet(RexNode expression) {
        return firstCall(expression, call -> {
            if (call.getKind() != SqlKind.SEARCH
                    || !(SqlTypeName.APPROX_TYPES.contains(call.getOperands().get(0).getType().getSqlTypeName())
                            || SqlTypeName.APPROX_TYPES.contains(call.getOperands().get(1).getType().getSqlTypeName()))) {
                return false;
            }
            Sarg<?> sarg = ((RexLiteral) call.getOperands().get(1)).getValueAs(Sarg.class);
            return sarg != null && (sarg.isPoints() || sarg.isComplementedPoints());
        });
    }

    /** The first call in {@code expression} (itself included, depth first) that {@code test} holds for, or null. */
    private static RexCall firstCall(RexNode expression, Predicate<RexCall> test) {
        RexCall[] found = new RexCall[1];
        expression.accept(new RexVisitorImpl<Void>(true) {
            @Override
            public Void visitCall(RexCall call) {
                if (found[0] == null && test.test(call)) {
                    found[0] = call;
                }
                return super.visitCall(call);
            }
        });
        return found[0];
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
        boolean nanos = isNanoTimestamp(call.getType());
        for (RexNode operand : operands) {
            nanos |= isNanoTimestamp(operand.getType());
        }
        if (nanos) {
            // Natively such a timestamp is a count of nanoseconds, which holds the years 1677 to
            // 2262 only; Flink's holds any. They pass through the island, uncomputed.
            throw new Unsupported(call + ": computations over timestamps of more than 6 fractional digits are not "
                    + "evaluated natively", "a timestamp of at most 6 fractional digits");
        }
        if (COMPARISONS.containsKey(kind)) {
            String common = comparedIn(call, operands.get(0).getType(), operands.get(1).getType());
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
                    if (isDecimal(result)) {
                        return decimalArithmetic(call, result);
                    }
                    if (isTimestamp(result) && kind != SqlKind.TIMES) {
                        return timestampPlus(call, kind == SqlKind.MINUS, result);
                    }
                    if (!isNumber(result)) {
                        throw new Unsupported(call + ": arithmetic of type " + call.getType() + " is not evaluated natively");
                    }
                    return op(ARITHMETIC.get(kind), as(operands.get(0), result), as(operands.get(1), result));
                }
            case MOD:
                return mod(call);
            case DIVIDE:
                return divide(call);
            case CAST:
                {
                    String to = sqlType(call.getType());
                    RelDataType source = operands.get(0).getType();
                    String from = sqlType(source);
                    if (isTimestamp(from) && isTimestamp(to) && call.getType().getPrecision() < source.getPrecision()) {
                        // Flink truncates to the fewer digits; the native cast keeps the Arrow unit's.
                        throw new Unsupported(
                                call + ": a CAST to a timestamp of fewer fractional digits is not evaluated natively",
                                "a CAST to a timestamp of as many digits");
                    }
                    if (to.equals("STRING") && isDecimal(from) && operands.get(0).getKind() == SqlKind.CAST
                            && SqlTypeFamily.CHARACTER.contains(((RexCall) operands.get(0)).getOperands().get(0).getType())) {
                        // Text Flink parses into a DECIMAL may hold more digits than its precision, which
                        // the native text of a DECIMAL would cut.
                        throw new Unsupported(call + ": a DECIMAL parsed from text is not written back as text natively",
                                "the text itself");
                    }
                    if (to.equals("STRING") && !fitsText(source, call.getType())) {
                        throw new Unsupported(
                                call + ": a CAST to " + call.getType() + " that may cut the text is not evaluated natively",
                                "a CAST to STRING, or to a VARCHAR as long as the longest value's text");
                    }
                    // Text parses as Flink parses it into integers, BOOLEANs, DOUBLEs and DECIMALs (failing
                    // where Flink fails).
                    boolean parsesText = from.equals("STRING") && !to.equals("STRING");
                    boolean parsed = isInteger(to) || to.equals("BOOLEAN") || to.equals("DOUBLE") || isDecimal(to);
                    // A TIMESTAMP written as text, whose precision is its Arrow unit's (3, 6 or 9 digits of a
                    // second, which the native text takes from the unit).
                    boolean timestampText = source.getSqlTypeName() == SqlTypeName.TIMESTAMP
                            && to.equals("STRING")
                            && unitPrecision(source.getPrecision()) == source.getPrecision();
                    if (!widens(from, to) && !narrowsNumber(from, to) && !(parsesText && parsed) && !timestampText) {
                        throw new Unsupported(
                                call + ": only casts between numbers (but from FLOAT or DOUBLE to DECIMAL), from text to "
                                        + "integers, BOOLEAN, DOUBLE and DECIMAL, from TIMESTAMP to text and casts that keep every "
                                        + "value are evaluated natively",
                                "a CAST to a type that holds every value (a wider integer, DOUBLE, STRING)");
                    }
                    if (parsesText && legacyCasts) {
                        throw new Unsupported(call + ": with table.exec.legacy-cast-behaviour enabled, text that does not "
                                + "parse casts to NULL, which is not evaluated natively", "the option disabled (Flink's default)");
                    }
                    ObjectNode cast = cast(expression(operands.get(0)), to, false);
                    return parsesText ? cast.put("parses", true) : cast;
                }
            case EXTRACT:
                return extract(call);
            case LIKE:
                return like(call);
            default:
                return function(call);
        }
    }

    /**
     * Whether {@code operator} is Flink's built-in function of its name: a function of the new
     * stack defined by {@link BuiltInFunctionDefinition}, or one of Calcite's and Flink's operator
     * tables. A function a user or a module (Hive's) registers under a built-in's name reaches the
     * plan as a {@link BridgingSqlFunction} of its own definition, and is no built-in.
     */
    private static boolean isBuiltIn(SqlOperator operator) {
        if (operator instanceof BridgingSqlFunction) {
            return ((BridgingSqlFunction) operator).getDefinition() instanceof BuiltInFunctionDefinition;
        }
        String type = operator.getClass().getName();
        return type.startsWith("org.apache.calcite.sql.") || type.startsWith("org.apache.flink.table.planner.functions.sql.");
    }

    /**
     * The functions the native calc has by name: Flink's COALESCE (a function of its own, not
     * Calcite's kind), string functions and DATE_FORMAT, each with the constant arguments it
     * needs.
     */
    private ObjectNode function(RexCall call) throws Unsupported {
        if (!isBuiltIn(call.getOperator())) {
            throw new Unsupported(call + ": " + call.getOperator().getName()
                    + " is a user-defined or module function, not Flink's built-in one; it is not evaluated natively");
        }
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        List<RexNode> operands = call.getOperands();
        switch (name) {
            case "COALESCE":
                return choice(call, "COALESCE");
            case "||":
            case "CONCAT":
                {
                    if (call.getType().getSqlTypeName() != SqlTypeName.VARCHAR) {
                        throw new Unsupported(call + ": CONCAT of type " + call.getType() + " is not evaluated natively");
                    }
                    ObjectNode[] args = new ObjectNode[operands.size()];
                    for (int i = 0; i < args.length; i++) {
                        args[i] = string(call, operands.get(i));
                    }
                    return op("CONCAT", args);
                }
            case "LOWER":
            case "UPPER":
                if (LOCALE_CASE_RULES.contains(Locale.getDefault().getLanguage())) {
                    throw new Unsupported(
                            call + ": " + name + " follows the JVM's default locale " + Locale.getDefault()
                                    + ", whose case rules are not evaluated natively",
                            "a JVM default locale without its own case rules (-Duser.language=en)");
                }
                if (!JAVA_CASE_TABLE_IS_UNICODE_13) {
                    throw new Unsupported(
                            call + ": " + name + " follows the case table of this JVM (Java " + Runtime.version().feature()
                                    + "); the native one is Java 17's (Unicode 13)",
                            "a Java 17 JVM");
                }
                return op(name, string(call, operands.get(0)));
            case "CHAR_LENGTH":
            case "CHARACTER_LENGTH":
                if (operands.get(0).getType().getSqlTypeName() != SqlTypeName.VARCHAR) {
                    throw new Unsupported(call + ": CHAR_LENGTH is evaluated natively only over VARCHAR values");
                }
                return op("CHAR_LENGTH", expression(operands.get(0)));
            case "REGEXP_EXTRACT":
                if (operands.size() == 2) {
                    // The whole match.
                    ObjectNode whole = literal("INT", "0");
                    return op(name, string(call, operands.get(0)), constant(call, operands.get(1), "STRING"), whole);
                }
                return stringIndexed(call, name);
            case "SPLIT_INDEX":
                return stringIndexed(call, name);
            case "SUBSTRING":
            case "SUBSTR":
                {
                    ObjectNode[] args = new ObjectNode[operands.size()];
                    args[0] = string(call, operands.get(0));
                    for (int i = 1; i < args.length; i++) {
                        args[i] = constant(call, operands.get(i), "INT");
                    }
                    return op("SUBSTRING", args);
                }
            case "TRIM":
                {
                    // Calcite's form: the side, the characters, the string.
                    Object side = operands.get(0) instanceof RexLiteral ? ((RexLiteral) operands.get(0)).getValue() : null;
                    if (!(side instanceof SqlTrimFunction.Flag)) {
                        throw new Unsupported(call + ": TRIM is evaluated natively only with a BOTH, LEADING or TRAILING flag");
                    }
                    return trim(call, operands.get(2), operands.get(1), ((SqlTrimFunction.Flag) side).name());
                }
            case "LTRIM":
            case "RTRIM":
                return trim(
                        call,
                        operands.get(0),
                        operands.size() > 1 ? operands.get(1) : null,
                        name.equals("LTRIM") ? "LEADING" : "TRAILING");
            case "REPLACE":
                {
                    ObjectNode search = constant(call, operands.get(1), "STRING");
                    if (search.path("value").asText().isEmpty()) {
                        throw new Unsupported(call + ": REPLACE of the empty string is not evaluated natively");
                    }
                    return op(name, string(call, operands.get(0)), search, constant(call, operands.get(2), "STRING"));
                }
            case "ABS":
                {
                    String type = sqlType(operands.get(0).getType());
                    if (!(isNumber(type) || isDecimal(type)) || !type.equals(sqlType(call.getType()))) {
                        throw new Unsupported(call + ": ABS is evaluated natively only of a number, in its own type");
                    }
                    return op(name, expression(operands.get(0)));
                }
            case "IF":
                {
                    // Flink's IF runs only the branch its condition picks, as CASE does.
                    String result = sqlType(call.getType());
                    if (isDecimal(result) && (firstCall(operands.get(1), CalcDescription::parsesText) != null
                            || firstCall(operands.get(2), CalcDescription::parsesText) != null)) {
                        // Where such a value has more digits than the result's precision, Flink's
                        // IF fails writing the NULL its cast gives as a value; CASE gives NULL.
                        throw new Unsupported(call + ": IF of a DECIMAL parsed from text is not evaluated natively",
                                "CASE WHEN ... THEN ... ELSE ... END");
                    }
                    return op("CASE", expression(operands.get(0)), as(operands.get(1), result), as(operands.get(2), result));
                }
            case "DATE_FORMAT":
                if (operands.size() != 2 || operands.get(0).getType().getSqlTypeName() != SqlTypeName.TIMESTAMP) {
                    throw new Unsupported(call + ": DATE_FORMAT is evaluated natively only of a TIMESTAMP");
                }
                return op("DATE_FORMAT", expression(operands.get(0)), constant(call, operands.get(1), "STRING"));
            default:
                throw new Unsupported(
                        "the function " + call.getOperator().getName() + " is not evaluated natively",
                        "the query without " + call.getOperator().getName() + " over this source; the island's functions are " + FUNCTIONS);
        }
    }

    /**
     * {@code ts + INTERVAL} and {@code ts - INTERVAL} of a TIMESTAMP without a zone and a constant
     * interval: milliseconds for a day-time interval, months for a year-month one.
     */
    private ObjectNode timestampPlus(RexCall call, boolean minus, String result) throws Unsupported {
        List<RexNode> operands = call.getOperands();
        int at = operands.get(0).getType().getSqlTypeName() == SqlTypeName.TIMESTAMP ? 0 : 1;
        RexNode timestamp = operands.get(at);
        RexNode interval = operands.get(1 - at);
        SqlTypeFamily family = interval.getType().getSqlTypeName().getFamily();
        boolean months = family == SqlTypeFamily.INTERVAL_YEAR_MONTH;
        if (timestamp.getType().getSqlTypeName() != SqlTypeName.TIMESTAMP
                || !sqlType(timestamp.getType()).equals(result)
                || (minus && at != 0)
                || !(interval instanceof RexLiteral)
                || ((RexLiteral) interval).isNull()
                || (!months && family != SqlTypeFamily.INTERVAL_DAY_TIME)) {
            throw new Unsupported(
                    call + ": only a TIMESTAMP plus or minus a constant INTERVAL is evaluated natively",
                    "a constant INTERVAL added to a TIMESTAMP column");
        }
        long amount = ((RexLiteral) interval).getValueAs(Long.class);
        if (minus && amount == Long.MIN_VALUE) {
            throw new Unsupported(call + ": the interval is out of range");
        }
        return op(months ? "ADD_MONTHS" : "ADD_MILLIS", expression(timestamp), literal("BIGINT", String.valueOf(minus ? -amount : amount)));
    }

    /** {@code TRIM} of {@code string} on {@code side}: the constant {@code characters}, or spaces. */
    private ObjectNode trim(RexCall call, RexNode string, RexNode characters, String side) throws Unsupported {
        ObjectNode removed = characters == null ? text(" ") : constant(call, characters, "STRING");
        return op("TRIM", string(call, string), removed, text(side));
    }

    /** A STRING literal. */
    private static ObjectNode text(String value) {
        return literal("STRING", value);
    }

    /** A literal of {@code type} whose text is {@code value} (not NULL). */
    private static ObjectNode literal(String type, String value) {
        return JSON.objectNode().put("kind", "literal").put("type", type).put("value", value);
    }

    /**
     * {@code LIKE} or {@code NOT LIKE} with a constant pattern (and escape); ILIKE and SIMILAR TO
     * stay in Flink.
     */
    private ObjectNode like(RexCall call) throws Unsupported {
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        if (!name.equals("LIKE") && !name.equals("NOT LIKE")) {
            throw new Unsupported("the function " + name + " is not evaluated natively");
        }
        List<RexNode> operands = call.getOperands();
        ObjectNode[] args = new ObjectNode[operands.size()];
        args[0] = string(call, operands.get(0));
        for (int i = 1; i < args.length; i++) {
            args[i] = constant(call, operands.get(i), "STRING");
        }
        ObjectNode like = op("LIKE", args);
        return name.equals("LIKE") ? like : op("NOT", like);
    }

    /** A function of a string, a constant string and a constant index. */
    private ObjectNode stringIndexed(RexCall call, String name) throws Unsupported {
        List<RexNode> operands = call.getOperands();
        if (operands.size() != 3) {
            throw new Unsupported(call + ": " + name + " is evaluated natively only with three arguments");
        }
        return op(
                name,
                string(call, operands.get(0)),
                constant(call, operands.get(1), "STRING"),
                constant(call, operands.get(2), "INT"));
    }

    /** {@code EXTRACT(field FROM ts)} of a TIMESTAMP without a zone. */
    private ObjectNode extract(RexCall call) throws Unsupported {
        RexNode unit = call.getOperands().get(0);
        RexNode timestamp = call.getOperands().get(1);
        TimeUnitRange range = unit instanceof RexLiteral ? ((RexLiteral) unit).getValueAs(TimeUnitRange.class) : null;
        if (range == null
                || !EXTRACTED.contains(range)
                || timestamp.getType().getSqlTypeName() != SqlTypeName.TIMESTAMP
                || !sqlType(call.getType()).equals("BIGINT")) {
            throw new Unsupported(call + ": EXTRACT is evaluated natively only of YEAR to SECOND from a TIMESTAMP");
        }
        return op("EXTRACT", text(range.name()), expression(timestamp));
    }

    /** A string operand (VARCHAR, or CHAR as it is). */
    private ObjectNode string(RexCall call, RexNode operand) throws Unsupported {
        if (!sqlType(operand.getType()).equals("STRING")) {
            throw new Unsupported(call + ": the operand " + operand + " is not a string");
        }
        return expression(operand);
    }

    /**
     * An operand that must be a non-NULL constant, as {@code type}; an integer one may be of a
     * narrower integer type. A wider one stays in Flink, whose functions take an {@code int}
     * (REGEXP_EXTRACT narrows a BIGINT index as Java's cast does; SUBSTRING has no such method).
     */
    private static ObjectNode constant(RexCall call, RexNode operand, String type) throws Unsupported {
        if (!(operand instanceof RexLiteral) || ((RexLiteral) operand).isNull()) {
            throw new Unsupported(call + ": " + call.getOperator().getName() + " is evaluated natively only with constant arguments");
        }
        String own = sqlType(operand.getType());
        if (!own.equals(type) && !(isInteger(own) && isInteger(type) && width(own) <= width(type))) {
            throw new Unsupported(call + ": the argument " + operand + " is not of type " + type);
        }
        return literal((RexLiteral) operand, type);
    }

    /**
     * {@code +}, {@code -} or {@code *} in DECIMAL: admitted where Flink's result type keeps every
     * digit (no scale is reduced to fit 38 digits), which is the type the native kernel derives.
     */
    private ObjectNode decimalArithmetic(RexCall call, String result) throws Unsupported {
        String left = decimalOf(call, sqlType(call.getOperands().get(0).getType()));
        String right = decimalOf(call, sqlType(call.getOperands().get(1).getType()));
        int p1 = precision(left), s1 = scale(left), p2 = precision(right), s2 = scale(right);
        String natural;
        if (call.getKind() == SqlKind.TIMES) {
            natural = decimal(p1 + p2 + 1, s1 + s2);
        } else {
            int s = Math.max(s1, s2);
            natural = decimal(Math.max(p1 - s1, p2 - s2) + s + 1, s);
        }
        if (!natural.equals(result) || precision(natural) > MAX_PRECISION) {
            throw new Unsupported(call + ": DECIMAL arithmetic whose result Flink rounds to " + result + " is not evaluated natively");
        }
        return op(ARITHMETIC.get(call.getKind()), as(call.getOperands().get(0), left), as(call.getOperands().get(1), right));
    }

    /** The DECIMAL an integer or decimal operand computes in, as Flink widens integers. */
    private static String decimalOf(RexCall call, String type) throws Unsupported {
        if (isDecimal(type)) {
            return type;
        }
        if (isInteger(type)) {
            return decimal(digits(type), 0);
        }
        throw new Unsupported(call + ": DECIMAL arithmetic with a " + type + " operand is not evaluated natively");
    }

    /**
     * {@code CASE} (conditions and values, then the ELSE value) or {@code COALESCE}: values in the
     * call's type, which must not be CHAR (Flink pads CHAR values to one length).
     */
    private ObjectNode choice(RexCall call, String op) throws Unsupported {
        if (call.getType().getSqlTypeName() == SqlTypeName.CHAR) {
            throw new Unsupported(
                    call + ": " + op + " of CHAR values (Flink pads them to one length) is not evaluated natively",
                    "values of type STRING (CAST the literals AS STRING)");
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
     * {@code MOD} of integers as Java's {@code %} (by zero it fails, as Flink's code does):
     * computed in the wider operand type and narrowed to the result type (the divisor's), which is
     * exact because the remainder is smaller than the divisor.
     */
    private ObjectNode mod(RexCall call) throws Unsupported {
        RexNode divisor = call.getOperands().get(1);
        String common = commonType(call, call.getOperands().get(0).getType(), divisor.getType());
        String result = sqlType(call.getType());
        if (!isInteger(common) || !isInteger(result)) {
            throw new Unsupported(call + ": MOD is evaluated natively only on integers");
        }
        ObjectNode mod = op("MOD", as(call.getOperands().get(0), common), as(divisor, common));
        return result.equals(common) ? mod : cast(mod, result, true);
    }

    /**
     * {@code /}: integers of Flink's result type as Java divides them, floating-point numbers as
     * IEEE 754 divides them, or DECIMALs in the type Flink derives without cutting it to 38
     * digits. Integer and DECIMAL division by zero fail as in Flink.
     */
    private ObjectNode divide(RexCall call) throws Unsupported {
        RexNode dividend = call.getOperands().get(0);
        RexNode divisor = call.getOperands().get(1);
        String result = sqlType(call.getType());
        if (isDecimal(result)) {
            String left = decimalOf(call, sqlType(dividend.getType()));
            String right = decimalOf(call, sqlType(divisor.getType()));
            int scale = Math.max(6, scale(left) + precision(right) + 1);
            String natural = decimal(precision(left) - scale(left) + scale(right) + scale, scale);
            if (!natural.equals(result)) {
                throw new Unsupported(call + ": DECIMAL division whose result Flink cuts to " + result + " is not evaluated natively");
            }
            return op("DIVIDE", as(dividend, left), as(divisor, right));
        }
        String common = commonType(call, dividend.getType(), divisor.getType());
        if (!isNumber(result) || !common.equals(result)) {
            throw new Unsupported(call + ": / of type " + call.getType() + " is not evaluated natively");
        }
        return op("DIVIDE", as(dividend, common), as(divisor, common));
    }

    /** Whether every value of {@code from} cast to the string type {@code to} keeps all its text. */
    private static boolean fitsText(RelDataType from, RelDataType to) throws Unsupported {
        if (to.getSqlTypeName() != SqlTypeName.VARCHAR) {
            return false;
        }
        String type = sqlType(from);
        // A TIMESTAMP: yyyy-MM-dd HH:mm:ss, a point and the fraction's digits.
        int longest = from.getSqlTypeName() == SqlTypeName.TIMESTAMP
                ? 20 + from.getPrecision()
                : isDecimal(type) ? precision(type) + 3 : isInteger(type) ? digits(type) + 1 : Integer.MAX_VALUE;
        return to.getPrecision() >= longest;
    }

    /**
     * The type a comparison's operands meet in: their common type, but two DECIMALs of different
     * types meet at 38 digits. Flink compares DECIMAL values as they are, and its text cast makes
     * values of one digit more than their type's precision, which a narrower common type would
     * make NULL.
     */
    private static String comparedIn(RexCall call, RelDataType left, RelDataType right) throws Unsupported {
        String common = commonType(call, left, right);
        if (!isDecimal(common) || sqlType(left).equals(sqlType(right))) {
            return common;
        }
        if (precision(common) == MAX_PRECISION && firstCall(call, CalcDescription::parsesText) != null) {
            throw new Unsupported(call + ": a DECIMAL parsed from text compared in " + common + " is not evaluated natively");
        }
        return decimal(MAX_PRECISION, scale(common));
    }

    /** The type both operands are compared or combined in, as Java promotes them. */
    private static String commonType(RexCall call, RelDataType left, RelDataType right) throws Unsupported {
        String a = sqlType(left);
        String b = sqlType(right);
        if (a.equals(b)) {
            return a;
        }
        if (isTimestamp(a) && isTimestamp(b) && zone(a).equals(zone(b))) {
            // The finer unit holds every value of the coarser one.
            return timestampPrecision(a) >= timestampPrecision(b) ? a : b;
        }
        if ((isDecimal(a) || isDecimal(b)) && (isDecimal(a) || isInteger(a)) && (isDecimal(b) || isInteger(b))) {
            String x = decimalOf(call, a);
            String y = decimalOf(call, b);
            int scale = Math.max(scale(x), scale(y));
            int precision = Math.max(precision(x) - scale(x), precision(y) - scale(y)) + scale;
            if (precision > MAX_PRECISION) {
                throw new Unsupported(call + ": operands of types " + left + " and " + right + " are not combined natively");
            }
            return decimal(precision, scale);
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
        boolean numbers = (isInteger(own) || isDecimal(own)) && (isInteger(type) || isDecimal(type));
        boolean timestamps = isTimestamp(own) && isTimestamp(type) && zone(own).equals(zone(type));
        if (node instanceof RexLiteral && (numbers || timestamps)) {
            return literal((RexLiteral) node, type);
        }
        if (widens(own, type)) {
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
        } else if (isDecimal(type)) {
            text = literal.getValueAs(BigDecimal.class).toPlainString();
        } else if (type.startsWith("TIMESTAMP")) {
            if (literal.getType().getPrecision() > 3) {
                throw new Unsupported(
                        literal + ": timestamp literals finer than milliseconds are not evaluated natively",
                        "a TIMESTAMP(3) literal");
            }
            text = String.valueOf(literal.getValueAs(Long.class));
        } else if (type.equals("DOUBLE")) {
            text = String.valueOf(literal.getValueAs(Double.class));
        } else if (type.equals("FLOAT")) {
            // Java rounds a FLOAT literal from its decimal text once; through a double it would be twice.
            throw new Unsupported(literal + ": FLOAT literals are not evaluated natively", "a DOUBLE literal");
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
            case DECIMAL:
                return decimal(type.getPrecision(), type.getScale());
            case TIMESTAMP:
                // By the Arrow unit the bridge gives it: precisions of one unit compare as they are.
                return "TIMESTAMP(" + unitPrecision(type.getPrecision()) + ")";
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return "TIMESTAMP_LTZ(" + unitPrecision(type.getPrecision()) + ")";
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

    /** Whether {@code type} is a TIMESTAMP or TIMESTAMP_LTZ kept natively in nanoseconds. */
    private static boolean isNanoTimestamp(RelDataType type) {
        SqlTypeName name = type.getSqlTypeName();
        return (name == SqlTypeName.TIMESTAMP || name == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE)
                && unitPrecision(type.getPrecision()) == 9;
    }

    /** The largest precision of the Arrow time unit a TIMESTAMP of {@code precision} is held in. */
    private static int unitPrecision(int precision) {
        return precision <= 3 ? 3 : precision <= 6 ? 6 : 9;
    }

    private static String decimal(int precision, int scale) {
        return "DECIMAL(" + precision + "," + scale + ")";
    }

    private static boolean isDecimal(String type) {
        return type.startsWith("DECIMAL(");
    }

    private static int precision(String decimal) {
        return Integer.parseInt(decimal.substring("DECIMAL(".length(), decimal.indexOf(',')));
    }

    private static int scale(String decimal) {
        return Integer.parseInt(decimal.substring(decimal.indexOf(',') + 1, decimal.length() - 1));
    }

    /** The digits of an integer type's largest value, as Flink sizes its DECIMAL. */
    private static int digits(String integer) {
        switch (integer) {
            case "TINYINT":
                return 3;
            case "SMALLINT":
                return 5;
            case "INT":
                return 10;
            default:
                return 19;
        }
    }

    private static boolean isTimestamp(String type) {
        return type.startsWith("TIMESTAMP");
    }

    /** The time zone part of a timestamp type's name: {@code TIMESTAMP} or {@code TIMESTAMP_LTZ}. */
    private static String zone(String timestamp) {
        return timestamp.substring(0, timestamp.indexOf('('));
    }

    private static int timestampPrecision(String timestamp) {
        return Integer.parseInt(timestamp.substring(timestamp.indexOf('(') + 1, timestamp.length() - 1));
    }

    /** Whether a cast from {@code from} to {@code to} keeps every value exactly. */
    private static boolean widens(String from, String to) {
        if (isTimestamp(from) && isTimestamp(to)) {
            return zone(from).equals(zone(to)) && timestampPrecision(to) >= timestampPrecision(from);
        }
        if (to.equals("STRING")) {
            return isInteger(from) || isDecimal(from);
        }
        if (from.equals("FLOAT") && to.equals("DOUBLE")) {
            return true;
        }
        if (isDecimal(to)) {
            int room = precision(to) - scale(to);
            if (isDecimal(from)) {
                return scale(to) >= scale(from) && room >= precision(from) - scale(from);
            }
            return isInteger(from) && room >= digits(from);
        }
        return isInteger(from) && isNumber(to) && (!isInteger(to) || width(from) <= width(to));
    }

    /**
     * Whether the native calc casts {@code from} to {@code to} as Flink does where the cast may
     * change a value: between integers, FLOAT, DOUBLE and DECIMALs, but not from FLOAT or DOUBLE
     * to DECIMAL.
     */
    private static boolean narrowsNumber(String from, String to) {
        boolean approximate = from.equals("FLOAT") || from.equals("DOUBLE");
        return (isNumber(from) || isDecimal(from)) && (isNumber(to) || isDecimal(to)) && !(approximate && isDecimal(to));
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
