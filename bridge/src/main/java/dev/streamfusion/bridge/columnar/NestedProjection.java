package dev.streamfusion.bridge.columnar;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A projection of (possibly nested) fields, as Flink's planner pushes it into a source: each
 * projected column is a path of field indices into the physical row type ({@code [[2], [0, 1]]}
 * reads column 2 and field 1 of the row in column 0).
 *
 * <p>The native decoder is handed {@link #prunedType()}: the physical row with only the columns
 * and nested fields the paths reach (a path that ends on a row keeps the whole row), so nothing
 * else is decoded or built. {@link ArrowColumnarBatch#of(org.apache.arrow.vector.VectorSchemaRoot,
 * NestedProjection)} then presents the pruned batch as the projected columns, without copying.
 */
@Internal
public final class NestedProjection {

    private final RowType physicalType;
    private final int[][] paths;
    private final RowType prunedType;
    private final RowType producedType;
    private final int[][] prunedPaths;

    private NestedProjection(
            RowType physicalType, int[][] paths, RowType prunedType, RowType producedType, int[][] prunedPaths) {
        this.physicalType = physicalType;
        this.paths = paths;
        this.prunedType = prunedType;
        this.producedType = producedType;
        this.prunedPaths = prunedPaths;
    }

    /** The projection of {@code paths} (field-index paths into {@code physical}). */
    public static NestedProjection of(RowType physical, int[][] paths) {
        Node root = new Node();
        for (int[] path : paths) {
            Node node = root;
            for (int depth = 0; depth < path.length; depth++) {
                if (node.whole) {
                    break;
                }
                node = node.children.computeIfAbsent(path[depth], k -> new Node());
                if (depth == path.length - 1) {
                    node.whole = true;
                    node.children.clear();
                }
            }
        }
        RowType pruned = (RowType) prune(physical, root);

        int[][] prunedPaths = new int[paths.length][];
        List<RowType.RowField> produced = new ArrayList<>();
        for (int p = 0; p < paths.length; p++) {
            int[] path = paths[p];
            prunedPaths[p] = new int[path.length];
            LogicalType physicalType = physical;
            LogicalType prunedTypeAt = pruned;
            StringBuilder name = new StringBuilder();
            for (int depth = 0; depth < path.length; depth++) {
                RowType physicalRow = (RowType) physicalType;
                String fieldName = physicalRow.getFieldNames().get(path[depth]);
                RowType prunedRow = (RowType) prunedTypeAt;
                int prunedIndex = prunedRow.getFieldIndex(fieldName);
                prunedPaths[p][depth] = prunedIndex;
                name.append(depth == 0 ? "" : "_").append(fieldName);
                physicalType = physicalRow.getTypeAt(path[depth]);
                prunedTypeAt = prunedRow.getTypeAt(prunedIndex);
            }
            produced.add(new RowType.RowField(name.toString(), prunedTypeAt));
        }
        return new NestedProjection(physical, paths, pruned, new RowType(false, produced), prunedPaths);
    }

    /** The physical row with only what the paths reach, in physical order. */
    public RowType prunedType() {
        return prunedType;
    }

    /** The projected columns, named like Flink's projection ({@code row_field}). */
    public RowType producedType() {
        return producedType;
    }

    /**
     * For each produced column, the index of the pruned batch's column it is; null when a produced
     * column is a nested field (it has no column of its own in the pruned batch).
     */
    public int[] prunedColumns() {
        int[] columns = new int[prunedPaths.length];
        for (int c = 0; c < columns.length; c++) {
            if (prunedPaths[c].length != 1) {
                return null;
            }
            columns[c] = prunedPaths[c][0];
        }
        return columns;
    }

    int[][] prunedPaths() {
        return prunedPaths;
    }

    /**
     * The projected columns of a whole physical row (one a row-at-a-time deserializer made), as
     * a new row; a field under a NULL row reads as NULL, as Flink's projection reads it.
     */
    public RowData project(RowData physical) {
        GenericRowData out = new GenericRowData(physical.getRowKind(), paths.length);
        for (int p = 0; p < paths.length; p++) {
            RowData row = physical;
            RowType type = physicalType;
            int[] path = paths[p];
            for (int depth = 0; row != null && depth < path.length - 1; depth++) {
                RowType nested = (RowType) type.getTypeAt(path[depth]);
                row = row.isNullAt(path[depth]) ? null : row.getRow(path[depth], nested.getFieldCount());
                type = nested;
            }
            int last = path[path.length - 1];
            out.setField(p, row == null ? null : RowData.createFieldGetter(type.getTypeAt(last), last).getFieldOrNull(row));
        }
        return out;
    }

    private static LogicalType prune(LogicalType type, Node node) {
        if (node.whole || node.children.isEmpty()) {
            return type;
        }
        RowType row = (RowType) type;
        List<RowType.RowField> fields = new ArrayList<>();
        for (int f = 0; f < row.getFieldCount(); f++) {
            Node child = node.children.get(f);
            if (child != null) {
                fields.add(new RowType.RowField(row.getFieldNames().get(f), prune(row.getTypeAt(f), child)));
            }
        }
        return new RowType(row.isNullable(), fields);
    }

    /** Which fields of a row a projection reaches. */
    private static final class Node {
        final Map<Integer, Node> children = new LinkedHashMap<>();
        boolean whole;
    }
}
