package dev.streamfusion.bridge.testing;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;

import static org.apache.flink.table.api.DataTypes.FIELD;

/** Row types that cover every Flink SQL type the bridge maps, alone and nested. */
public final class TestSchemas {

    private TestSchemas() {}

    /** Every scalar and nested type, nullable and NOT NULL, nested to several levels. */
    public static RowType allTypes() {
        List<DataTypes.Field> fields = new ArrayList<>();
        fields.add(FIELD("b", DataTypes.BOOLEAN()));
        fields.add(FIELD("ti", DataTypes.TINYINT()));
        fields.add(FIELD("si", DataTypes.SMALLINT()));
        fields.add(FIELD("i", DataTypes.INT()));
        fields.add(FIELD("i_nn", DataTypes.INT().notNull()));
        fields.add(FIELD("bi", DataTypes.BIGINT()));
        fields.add(FIELD("f", DataTypes.FLOAT()));
        fields.add(FIELD("d", DataTypes.DOUBLE()));
        fields.add(FIELD("dec_1_0", DataTypes.DECIMAL(1, 0)));
        fields.add(FIELD("dec_10_2", DataTypes.DECIMAL(10, 2)));
        fields.add(FIELD("dec_18_4", DataTypes.DECIMAL(18, 4)));
        fields.add(FIELD("dec_19_0", DataTypes.DECIMAL(19, 0)));
        fields.add(FIELD("dec_38_18", DataTypes.DECIMAL(38, 18)));
        fields.add(FIELD("dec_38_0", DataTypes.DECIMAL(38, 0)));
        fields.add(FIELD("ch", DataTypes.CHAR(5)));
        fields.add(FIELD("vc", DataTypes.VARCHAR(20)));
        fields.add(FIELD("s", DataTypes.STRING()));
        fields.add(FIELD("s_nn", DataTypes.STRING().notNull()));
        fields.add(FIELD("bin", DataTypes.BINARY(4)));
        fields.add(FIELD("vbin", DataTypes.VARBINARY(10)));
        fields.add(FIELD("bytes", DataTypes.BYTES()));
        fields.add(FIELD("dt", DataTypes.DATE()));
        for (int p = 0; p <= 9; p++) {
            fields.add(FIELD("t" + p, DataTypes.TIME(p)));
        }
        for (int p = 0; p <= 9; p++) {
            fields.add(FIELD("ts" + p, DataTypes.TIMESTAMP(p)));
            fields.add(FIELD("ltz" + p, DataTypes.TIMESTAMP_LTZ(p)));
        }
        fields.add(FIELD("iym", DataTypes.INTERVAL(DataTypes.YEAR(), DataTypes.MONTH())));
        fields.add(FIELD("ids", DataTypes.INTERVAL(DataTypes.DAY(), DataTypes.SECOND(3))));
        fields.add(FIELD("arr_i", DataTypes.ARRAY(DataTypes.INT())));
        fields.add(FIELD("arr_s", DataTypes.ARRAY(DataTypes.STRING())));
        fields.add(FIELD("arr_arr", DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.BIGINT()))));
        fields.add(FIELD("arr_nn", DataTypes.ARRAY(DataTypes.DOUBLE().notNull()).notNull()));
        fields.add(FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())));
        fields.add(FIELD("m_dec", DataTypes.MAP(DataTypes.DECIMAL(38, 10), DataTypes.TIMESTAMP(9))));
        fields.add(FIELD("ms", DataTypes.MULTISET(DataTypes.STRING())));
        fields.add(
                FIELD(
                        "r",
                        DataTypes.ROW(
                                FIELD("x", DataTypes.INT()),
                                FIELD("y", DataTypes.STRING()),
                                FIELD(
                                        "z",
                                        DataTypes.ROW(
                                                FIELD("zz", DataTypes.DECIMAL(38, 18)),
                                                FIELD("zarr", DataTypes.ARRAY(DataTypes.TIMESTAMP_LTZ(6))))))));
        fields.add(
                FIELD(
                        "deep",
                        DataTypes.ARRAY(
                                DataTypes.MAP(
                                        DataTypes.STRING(),
                                        DataTypes.ROW(
                                                FIELD("q", DataTypes.ARRAY(DataTypes.INT())),
                                                FIELD("bin", DataTypes.BYTES()),
                                                FIELD("ms", DataTypes.MULTISET(DataTypes.DATE())))))));
        return rowType(fields);
    }

    private static RowType rowType(List<DataTypes.Field> fields) {
        DataType row = DataTypes.ROW(fields.toArray(new DataTypes.Field[0])).notNull();
        return (RowType) row.getLogicalType();
    }
}
