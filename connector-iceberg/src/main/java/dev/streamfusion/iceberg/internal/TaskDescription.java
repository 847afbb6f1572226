package dev.streamfusion.iceberg.internal;

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A planned file task as its reader takes it. Most tasks go to the native reader (JSON, the fields
 * of the Rust crate's {@code TaskDescription}): the data file or a byte range of it, the table
 * schema read, the projected field ids and the delete files that apply; {@link #of} makes those
 * only for what the native reader reads correctly, and refuses the rest naming the reason. The
 * rest ({@link #forJava}: Avro and ORC files, deletion vectors, equality deletes on nested fields)
 * go to Iceberg Java's generic reader ({@link JavaIcebergReader}) as Iceberg's own JSON of the
 * task, with the projected field ids, the name mapping and the case sensitivity beside it.
 */
@Internal
public final class TaskDescription implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The data and delete file formats Iceberg Java's reader takes here (besides Puffin deletion vectors). */
    private static final Set<FileFormat> JAVA_FORMATS = EnumSet.of(FileFormat.PARQUET, FileFormat.AVRO, FileFormat.ORC);

    private final String json;
    private final String path;
    private final long rows;
    /** Why the native reader cannot read the task, or {@code null} when it reads it. */
    private final String javaReason;
    /** For Iceberg Java's reader: the projected top-level field ids. */
    private final int[] projectedIds;
    /** For Iceberg Java's reader: the table's name mapping JSON, or {@code null}. */
    private final String nameMapping;
    /** For Iceberg Java's reader: whether column names are matched case-sensitively. */
    private final boolean caseSensitive;
    /**
     * For a metadata table's task: the position in its rows of each projected field, or {@code
     * null} for a task of a data file.
     */
    private final int[] rowPositions;

    private TaskDescription(
            String json,
            String path,
            long rows,
            String javaReason,
            int[] projectedIds,
            String nameMapping,
            boolean caseSensitive,
            int[] rowPositions) {
        this.json = json;
        this.path = path;
        this.rows = rows;
        this.javaReason = javaReason;
        this.projectedIds = projectedIds;
        this.nameMapping = nameMapping;
        this.caseSensitive = caseSensitive;
        this.rowPositions = rowPositions;
    }

    /** A native description read back from {@link #json()}, for a task of {@code rows} rows at most. */
    public static TaskDescription fromJson(String json, String path, long rows) {
        return new TaskDescription(json, path, rows, null, null, null, false, null);
    }

    /**
     * A description for Iceberg Java's reader read back from its parts ({@link #json()}: Iceberg's
     * JSON of the task; {@code rowPositions} {@code null} but for a metadata table's task).
     */
    public static TaskDescription javaFromJson(
            String json,
            String path,
            long rows,
            String reason,
            int[] projectedIds,
            String nameMapping,
            boolean caseSensitive,
            int[] rowPositions) {
        return new TaskDescription(json, path, rows, reason, projectedIds.clone(), nameMapping, caseSensitive,
                rowPositions == null ? null : rowPositions.clone());
    }

    /**
     * The description of a metadata table's task ({@link org.apache.iceberg.DataTask}, rows Iceberg makes of the
     * table's metadata, for Iceberg Java to read): its rows hold the projected fields {@code
     * projectedIds} at {@code rowPositions}.
     */
    public static TaskDescription forMetadata(FileScanTask task, int[] projectedIds, int[] rowPositions) {
        if (!task.isDataTask()) {
            throw new UnsupportedOperationException("Cannot read " + task.file().location()
                    + ": a metadata table's scan planned a task that reads no metadata rows (" + task.getClass().getName() + ")");
        }
        String path = task.file().location();
        return new TaskDescription(ScanTaskParser.toJson(task), path, task.file().recordCount(),
                "it reads the table's metadata", projectedIds.clone(), null, true, rowPositions.clone());
    }

    /**
     * The description of {@code task} for Iceberg Java's generic reader, which reads what the
     * native one cannot ({@code reason}): Parquet, Avro and ORC data files with any delete file,
     * deletion vectors included.
     *
     * @throws UnsupportedTaskException when neither reader reads the task (a file of another format)
     */
    public static TaskDescription forJava(
            FileScanTask task, int[] projectedIds, String nameMapping, boolean caseSensitive, String reason) {
        String path = task.file().location();
        if (!JAVA_FORMATS.contains(task.file().format())) {
            throw new UnsupportedTaskException("Cannot read data file " + path + ": its format is "
                    + task.file().format() + "; Parquet, Avro and ORC data files are read");
        }
        for (DeleteFile delete : task.deletes()) {
            if (!JAVA_FORMATS.contains(delete.format()) && delete.format() != FileFormat.PUFFIN) {
                throw new UnsupportedTaskException("Cannot read delete file " + delete.location() + " of " + path
                        + ": its format is " + delete.format() + "; Parquet, Avro, ORC and Puffin delete files are read");
            }
        }
        return new TaskDescription(ScanTaskParser.toJson(task), path, task.file().recordCount(), reason,
                projectedIds.clone(), nameMapping, caseSensitive, null);
    }

    /**
     * The description of {@code task} reading {@code projectedIds} (top-level field ids of {@code
     * schema}) of {@code schema}; {@code nameMapping} is the table's {@code
     * schema.name-mapping.default} JSON or {@code null}.
     *
     * @throws UnsupportedTaskException when the native reader cannot read the task correctly
     */
    public static TaskDescription of(
            FileScanTask task, Schema schema, ColumnHistory history, int[] projectedIds, String nameMapping, boolean caseSensitive) {
        String path = task.file().location();
        check(task.file().format() == FileFormat.PARQUET, path, "its format is " + task.file().format() + ", not Parquet");
        for (int id : projectedIds) {
            Types.NestedField field = schema.findField(id);
            check(!history.restructured.contains(id), path, "the nested fields of its column " + schema.findColumnName(id)
                    + " differ in another of the table's schemas (renamed, added, dropped or moved), and the native reader "
                    + "matches nested fields by name");
            checkDefault(field, path, "its column ");
        }
        for (DeleteFile delete : task.deletes()) {
            checkDelete(delete, schema, path);
        }
        Schema nativeSchema = withoutVariants(task, schema, projectedIds, caseSensitive, path);
        boolean wholeFile = task.start() == 0 && task.length() == task.file().fileSizeInBytes();
        StringBuilder json = new StringBuilder(1024);
        json.append("{\"path\":").append(quote(path))
                .append(",\"file-size\":").append(task.file().fileSizeInBytes())
                .append(",\"start\":").append(task.start())
                .append(",\"length\":").append(task.length());
        if (wholeFile && task.deletes().isEmpty()) {
            json.append(",\"record-count\":").append(task.file().recordCount());
        }
        json.append(",\"schema\":").append(SchemaParser.toJson(nativeSchema));
        json.append(",\"projected-ids\":[");
        for (int i = 0; i < projectedIds.length; i++) {
            json.append(i == 0 ? "" : ",").append(projectedIds[i]);
        }
        json.append("],\"deletes\":[");
        boolean first = true;
        for (DeleteFile delete : task.deletes()) {
            json.append(first ? "" : ",");
            first = false;
            boolean equality = delete.content() == FileContent.EQUALITY_DELETES;
            json.append("{\"path\":").append(quote(delete.location()))
                    .append(",\"file-size\":").append(delete.fileSizeInBytes())
                    .append(",\"content\":").append(equality ? "\"equality\"" : "\"position\"")
                    .append(",\"spec-id\":").append(delete.specId());
            if (equality) {
                json.append(",\"equality-ids\":").append(delete.equalityFieldIds());
            }
            json.append('}');
        }
        json.append(']');
        if (nameMapping != null) {
            json.append(",\"name-mapping\":").append(nameMapping);
        }
        json.append(partitionJson(task, schema, path));
        String filter = filterJson(task.residual(), schema, history.retyped, caseSensitive);
        if (filter != null) {
            json.append(",\"filter\":").append(filter);
        }
        json.append(",\"case-sensitive\":").append(caseSensitive).append('}');
        return new TaskDescription(json.toString(), path, task.file().recordCount(), null, null, null, false, null);
    }

    /**
     * {@code schema} without its columns that hold a VARIANT, which iceberg-rust 0.10.1 has no type
     * for (it cannot parse a schema with one): what the native reader is given when the task reads
     * none of them.
     *
     * @throws UnsupportedTaskException where the task reads such a column, filters by a field in
     *     one, or has an identity partition of a field in one
     */
    private static Schema withoutVariants(
            FileScanTask task, Schema schema, int[] projectedIds, boolean caseSensitive, String path) {
        Set<Integer> removed = new HashSet<>();
        List<Types.NestedField> kept = new ArrayList<>();
        for (Types.NestedField column : schema.columns()) {
            if (holdsVariant(column.type())) {
                removed.add(column.fieldId());
                addNestedIds(column.type(), removed);
            } else {
                kept.add(column);
            }
        }
        if (removed.isEmpty()) {
            return schema;
        }
        for (int id : projectedIds) {
            check(!removed.contains(id), path, "its column " + schema.findColumnName(id)
                    + " holds a VARIANT, which iceberg-rust 0.10.1 does not read");
        }
        for (PartitionField field : task.spec().fields()) {
            // Its value would be a constant of a column the native reader is not given.
            check(!field.transform().isIdentity() || !removed.contains(field.sourceId()), path,
                    "its identity partition field " + field.name() + " is of a column that holds a VARIANT");
        }
        if (task.residual() != null && task.residual().op() != Expression.Operation.TRUE) {
            Set<Integer> filtered =
                    new HashSet<>(Binder.boundReferences(schema.asStruct(), List.of(task.residual()), caseSensitive));
            filtered.retainAll(removed);
            check(filtered.isEmpty(), path, "its filter reads a field of a column that holds a VARIANT");
        }
        Set<Integer> identifiers = new HashSet<>(schema.identifierFieldIds());
        identifiers.removeAll(removed);
        return new Schema(schema.schemaId(), kept, identifiers);
    }

    private static void addNestedIds(Type type, Set<Integer> ids) {
        if (type.isNestedType()) {
            for (Types.NestedField field : type.asNestedType().fields()) {
                ids.add(field.fieldId());
                addNestedIds(field.type(), ids);
            }
        }
    }

    /** Whether {@code type} is or holds a VARIANT. */
    static boolean holdsVariant(Type type) {
        return type.typeId() == Type.TypeID.VARIANT
                || type.isNestedType() && type.asNestedType().fields().stream().anyMatch(f -> holdsVariant(f.type()));
    }

    /**
     * The task's residual filter as the native reader takes it (it prunes row groups and pages by
     * their statistics and drops rows with it; Flink still checks every row it is given), or {@code
     * null} for none: {@code true}, {@code false}, {@code {"and":[a,b]}}, {@code {"or":[a,b]}},
     * {@code {"not":a}}, and predicates {@code {"op":..,"id":<field id>,"value":v}} ({@code
     * "values":[..]} for {@code in} and {@code not-in}, none for {@code is-null} and {@code
     * not-null}) whose values are of the column's type: numbers for integers, days for dates,
     * microseconds for timestamps, plain decimal text for decimals, strings and booleans as they
     * are. A predicate of any other kind or type is {@code {"op":"unknown"}}, which the reader
     * treats as every row possibly matching.
     */
    static String filterJson(Expression residual, Schema schema, Set<Integer> retyped, boolean caseSensitive) {
        if (residual == null || residual.op() == Expression.Operation.TRUE) {
            return null;
        }
        return ExpressionVisitors.visit(residual, new FilterJson(schema, retyped, caseSensitive));
    }

    /**
     * The task's partition for the native reader, {@code ,"partition-spec":..,"partition":[..]},
     * where its spec has identity fields with values: rows take those values for the fields'
     * columns, as Iceberg's readers give them (a file may lack such a column, as files migrated
     * from a Hive table do). The values are written as filter values of their column's current
     * type, other fields' as {@code null}; empty where there is no such field.
     *
     * @throws UnsupportedTaskException for an identity value of a type not passed to the reader
     */
    private static String partitionJson(FileScanTask task, Schema schema, String path) {
        List<PartitionField> fields = task.spec().fields();
        StringBuilder values = new StringBuilder();
        boolean constants = false;
        for (int pos = 0; pos < fields.size(); pos++) {
            PartitionField field = fields.get(pos);
            Type type = schema.findType(field.sourceId());
            Object raw = task.file().partition().get(pos, Object.class);
            String value = null;
            if (field.transform().isIdentity() && type != null && raw != null) {
                value = FilterJson.value(type, raw);
                check(value != null, path, "its identity partition value of column " + schema.findColumnName(field.sourceId())
                        + " (" + type + ") is not passed to the native reader");
                constants = true;
            }
            values.append(pos == 0 ? "" : ",").append(value == null ? "null" : value);
        }
        if (!constants) {
            return "";
        }
        return ",\"partition-spec\":" + PartitionSpecParser.toJson(task.spec()) + ",\"partition\":[" + values + "]";
    }

    /**
     * Refuses a field ({@code role} and its name say which) whose default (format v3), for files
     * written before it was added, the native reader does not fill in.
     */
    private static void checkDefault(Types.NestedField field, String what, String role) {
        if (field != null && field.initialDefault() != null) {
            check(NATIVE_DEFAULTS.contains(field.type().typeId()), what, role + field.name() + " has a default of type "
                    + field.type() + " for files written before the column was added, which the native reader does not fill in");
        }
    }

    /** The types whose column defaults (format v3) the native reader fills in for files without the column. */
    private static final Set<Type.TypeID> NATIVE_DEFAULTS =
            EnumSet.of(Type.TypeID.BOOLEAN, Type.TypeID.INTEGER, Type.TypeID.LONG, Type.TypeID.STRING);

    /** What the table's schemas say of the current one's columns, for the native reader. */
    public static final class ColumnHistory {
        /** A table of one schema. */
        public static final ColumnHistory NONE = new ColumnHistory(Set.of(), Set.of());

        /**
         * The ids of fields whose type another schema gives differently (a promoted column: INT
         * to BIGINT, FLOAT to DOUBLE, a wider DECIMAL). The native reader casts a filter's value
         * to the type a file holds, and a value out of that narrower type's range would drop
         * every row of the file, so filters on these columns are not passed to it (Flink checks
         * every row; the native reader also checks each file's footer).
         */
        final Set<Integer> retyped;
        /**
         * The ids of top-level nested columns (structs, lists, maps) whose nested fields another
         * schema gives otherwise (renamed, added, dropped, moved, retyped): the native reader
         * matches nested fields by name, so tasks reading them go to Iceberg Java's reader.
         */
        final Set<Integer> restructured;

        private ColumnHistory(Set<Integer> retyped, Set<Integer> restructured) {
            this.retyped = retyped;
            this.restructured = restructured;
        }

        /** What {@code schemas} (the table's, {@code schema} among them) say of {@code schema}'s columns. */
        public static ColumnHistory of(Schema schema, Iterable<Schema> schemas) {
            Set<Integer> retyped = new HashSet<>();
            Set<Integer> restructured = new HashSet<>();
            for (Schema other : schemas) {
                for (Map.Entry<Integer, Types.NestedField> field : TypeUtil.indexById(other.asStruct()).entrySet()) {
                    Type now = schema.findType(field.getKey());
                    if (now != null && now.isPrimitiveType() && !now.equals(field.getValue().type())) {
                        retyped.add(field.getKey());
                    }
                }
                for (Types.NestedField column : schema.columns()) {
                    Types.NestedField then = other.findField(column.fieldId());
                    if (column.type().isNestedType() && then != null && !column.type().equals(then.type())) {
                        restructured.add(column.fieldId());
                    }
                }
            }
            return new ColumnHistory(retyped, restructured);
        }
    }

    /** Writes a filter as {@link #filterJson} describes. */
    private static final class FilterJson extends ExpressionVisitors.ExpressionVisitor<String> {
        private static final String UNKNOWN = "{\"op\":\"unknown\"}";

        private final Schema schema;
        private final Set<Integer> retyped;
        private final boolean caseSensitive;

        FilterJson(Schema schema, Set<Integer> retyped, boolean caseSensitive) {
            this.schema = schema;
            this.retyped = retyped;
            this.caseSensitive = caseSensitive;
        }

        @Override
        public String alwaysTrue() {
            return "true";
        }

        @Override
        public String alwaysFalse() {
            return "false";
        }

        @Override
        public String not(String child) {
            return "{\"not\":" + child + "}";
        }

        @Override
        public String and(String left, String right) {
            return "{\"and\":[" + left + "," + right + "]}";
        }

        @Override
        public String or(String left, String right) {
            return "{\"or\":[" + left + "," + right + "]}";
        }

        @Override
        public <T> String predicate(UnboundPredicate<T> predicate) {
            Expression bound;
            try {
                bound = predicate.bind(schema.asStruct(), caseSensitive);
            } catch (RuntimeException e) {
                return UNKNOWN;
            }
            return ExpressionVisitors.visit(bound, this);
        }

        @Override
        public <T> String predicate(BoundPredicate<T> predicate) {
            if (!(predicate.term() instanceof BoundReference)) {
                return UNKNOWN;
            }
            int id = ((BoundReference<T>) predicate.term()).fieldId();
            Type type = schema.findType(id);
            if (type == null || !type.isPrimitiveType() || retyped.contains(id)) {
                return UNKNOWN;
            }
            String head = "{\"id\":" + id + ",\"op\":";
            switch (predicate.op()) {
                case IS_NULL:
                    return head + "\"is-null\"}";
                case NOT_NULL:
                    return head + "\"not-null\"}";
                case LT:
                case LT_EQ:
                case GT:
                case GT_EQ:
                case EQ:
                case NOT_EQ: {
                    String value = value(type, predicate.asLiteralPredicate().literal().value());
                    return value == null ? UNKNOWN : head + "\"" + operation(predicate.op()) + "\",\"value\":" + value + "}";
                }
                case IN:
                case NOT_IN: {
                    StringBuilder values = new StringBuilder();
                    for (T literal : predicate.asSetPredicate().literalSet()) {
                        String value = value(type, literal);
                        if (value == null) {
                            return UNKNOWN;
                        }
                        values.append(values.length() == 0 ? "" : ",").append(value);
                    }
                    String op = predicate.op() == Expression.Operation.IN ? "in" : "not-in";
                    return head + "\"" + op + "\",\"values\":[" + values + "]}";
                }
                default:
                    return UNKNOWN;
            }
        }

        private static String operation(Expression.Operation op) {
            switch (op) {
                case LT:
                    return "lt";
                case LT_EQ:
                    return "lt-eq";
                case GT:
                    return "gt";
                case GT_EQ:
                    return "gt-eq";
                case EQ:
                    return "eq";
                default:
                    return "not-eq";
            }
        }

        /** A bound literal of a column of {@code type} as JSON, or {@code null} for a type not passed on. */
        static String value(Type type, Object value) {
            switch (type.typeId()) {
                case BOOLEAN:
                case INTEGER:
                case LONG:
                case DATE:
                case TIMESTAMP:
                    return String.valueOf(value);
                case STRING:
                    return quote(value.toString());
                case DECIMAL:
                    return quote(((BigDecimal) value).toPlainString());
                default:
                    // Floating point (Flink compares by IEEE 754, the reader by a total order),
                    // times, binaries, uuids and nanosecond timestamps: not passed on.
                    return null;
            }
        }
    }

    /** {@code text} as a JSON string. */
    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static void checkDelete(DeleteFile delete, Schema schema, String dataFile) {
        String what = "delete file " + delete.location() + " of " + dataFile;
        check(delete.format() != FileFormat.PUFFIN, what, "deletion vectors (format v3) are not read natively");
        check(delete.format() == FileFormat.PARQUET, what, "its format is " + delete.format() + ", not Parquet");
        if (delete.content() == FileContent.EQUALITY_DELETES) {
            List<Integer> ids = delete.equalityFieldIds();
            check(ids != null && !ids.isEmpty(), what, "it names no equality field");
            Map<Integer, Integer> parents = TypeUtil.indexParents(schema.asStruct());
            for (int id : ids) {
                Type type = schema.findType(id);
                check(type == null || type.isPrimitiveType(), what,
                        "its equality field " + id + " is not a primitive column");
                // iceberg-rust 0.10.1 matches top-level columns only.
                check(parents.get(id) == null, what, "its equality field " + id + " is nested in another column");
                // Read beside the projected columns to match the deleted keys, with the same defaults.
                checkDefault(schema.findField(id), what, "the equality delete field ");
            }
        }
    }

    private static void check(boolean condition, String what, String reason) {
        if (!condition) {
            throw new UnsupportedTaskException("Cannot read " + what + " natively: " + reason);
        }
    }

    /** The JSON the native reader takes, or Iceberg's JSON of the task for Iceberg Java's reader. */
    public String json() {
        return json;
    }

    /** Whether Iceberg Java's reader reads the task (the native one cannot). */
    public boolean readByJava() {
        return javaReason != null;
    }

    /** Why the native reader cannot read the task; only for {@link #readByJava()} tasks. */
    public String javaReason() {
        return javaReason;
    }

    /** The projected top-level field ids; only for {@link #readByJava()} tasks. */
    public int[] projectedIds() {
        return projectedIds.clone();
    }

    /** The table's name mapping JSON, or {@code null}; only for {@link #readByJava()} tasks. */
    public String nameMapping() {
        return nameMapping;
    }

    /** Whether column names match case-sensitively; only for {@link #readByJava()} tasks. */
    public boolean caseSensitive() {
        return caseSensitive;
    }

    /** Whether the task reads a metadata table's rows ({@link #forMetadata}). */
    public boolean isMetadata() {
        return rowPositions != null;
    }

    /** The position of each projected field in the rows; only for {@link #isMetadata()} tasks. */
    public int[] rowPositions() {
        return rowPositions.clone();
    }

    /** The data file's location. */
    public String path() {
        return path;
    }

    /** The data file's rows (before deletes). */
    public long rows() {
        return rows;
    }

    @Override
    public String toString() {
        return path;
    }

    /** A task the native reader cannot read correctly, with the reason. */
    public static final class UnsupportedTaskException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnsupportedTaskException(String message) {
            super(message);
        }
    }
}
