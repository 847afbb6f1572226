package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.types.logical.LogicalType;

import org.apache.fluss.row.InternalMap;

/** A Fluss map seen as a Flink map: its key and value arrays as views. */
@Internal
final class FlussMapAsFlink implements MapData {

    private final InternalMap map;
    private final FlussArrayAsFlink keys;
    private final FlussArrayAsFlink values;

    FlussMapAsFlink(LogicalType keyType, LogicalType valueType, InternalMap map) {
        this.map = map;
        this.keys = new FlussArrayAsFlink(keyType).wrap(map.keyArray());
        this.values = new FlussArrayAsFlink(valueType).wrap(map.valueArray());
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public ArrayData keyArray() {
        return keys;
    }

    @Override
    public ArrayData valueArray() {
        return values;
    }
}
