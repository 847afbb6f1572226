package dev.streamfusion.kafka.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;

/** The rows a key or value format reads and writes, as Flink's kafka connector defines them. */
@Internal
final class FormatRows {

    private FormatRows() {}

    /**
     * The physical columns at {@code fields}, their names without {@code prefix} ({@code
     * key.fields-prefix}) when one is given.
     */
    static RowType project(RowType physical, int[] fields, String prefix) {
        List<RowType.RowField> projected = new ArrayList<>(fields.length);
        for (int f : fields) {
            RowType.RowField field = physical.getFields().get(f);
            String name = prefix != null && field.getName().startsWith(prefix)
                    ? field.getName().substring(prefix.length())
                    : field.getName();
            projected.add(new RowType.RowField(name, field.getType()));
        }
        return new RowType(physical.isNullable(), projected);
    }
}
