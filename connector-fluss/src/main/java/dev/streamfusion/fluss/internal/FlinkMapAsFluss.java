package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.MapData;

import org.apache.fluss.row.InternalArray;
import org.apache.fluss.row.InternalMap;

/** A Flink map seen as a Fluss map: its key and value arrays as views. */
@Internal
final class FlinkMapAsFluss implements InternalMap {

    private final MapData map;

    FlinkMapAsFluss(MapData map) {
        this.map = map;
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public InternalArray keyArray() {
        return new FlinkArrayAsFluss().wrap(map.keyArray());
    }

    @Override
    public InternalArray valueArray() {
        return new FlinkArrayAsFluss().wrap(map.valueArray());
    }
}
