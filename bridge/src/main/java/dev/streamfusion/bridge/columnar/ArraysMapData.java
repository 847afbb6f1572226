package dev.streamfusion.bridge.columnar;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;

/** A Flink map made of a key array and a value array of the same size, as they are. */
@Internal
public final class ArraysMapData implements MapData {

    private final ArrayData keys;
    private final ArrayData values;

    public ArraysMapData(ArrayData keys, ArrayData values) {
        this.keys = keys;
        this.values = values;
    }

    @Override
    public int size() {
        return keys.size();
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
