package dev.streamfusion.fluss.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

import org.apache.fluss.types.DataField;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;

import java.util.ArrayList;
import java.util.List;

/**
 * Flink's column types and Fluss's, mapped as fluss-flink maps them: STRING and BYTES are the
 * unbounded VARCHAR and VARBINARY (bounded ones have no Fluss type), TIME keeps no fraction;
 * ARRAY, MAP and ROW map element by element (a ROW's fields keep their names).
 */
@Internal
final class FlussTypes {

    private FlussTypes() {}

    /** The Fluss type of a Flink column type. */
    static DataType toFluss(LogicalType type) {
        DataType fluss;
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                fluss = DataTypes.BOOLEAN();
                break;
            case TINYINT:
                fluss = DataTypes.TINYINT();
                break;
            case SMALLINT:
                fluss = DataTypes.SMALLINT();
                break;
            case INTEGER:
                fluss = DataTypes.INT();
                break;
            case BIGINT:
                fluss = DataTypes.BIGINT();
                break;
            case FLOAT:
                fluss = DataTypes.FLOAT();
                break;
            case DOUBLE:
                fluss = DataTypes.DOUBLE();
                break;
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                fluss = DataTypes.DECIMAL(decimal.getPrecision(), decimal.getScale());
                break;
            case CHAR:
                fluss = DataTypes.CHAR(((CharType) type).getLength());
                break;
            case VARCHAR:
                if (((VarCharType) type).getLength() != VarCharType.MAX_LENGTH) {
                    throw new UnsupportedOperationException("Fluss has no type for " + type + "; use STRING");
                }
                fluss = DataTypes.STRING();
                break;
            case BINARY:
                fluss = DataTypes.BINARY(((BinaryType) type).getLength());
                break;
            case VARBINARY:
                if (((VarBinaryType) type).getLength() != VarBinaryType.MAX_LENGTH) {
                    throw new UnsupportedOperationException("Fluss has no type for " + type + "; use BYTES");
                }
                fluss = DataTypes.BYTES();
                break;
            case DATE:
                fluss = DataTypes.DATE();
                break;
            case TIME_WITHOUT_TIME_ZONE:
                fluss = DataTypes.TIME(((TimeType) type).getPrecision());
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                fluss = DataTypes.TIMESTAMP(((TimestampType) type).getPrecision());
                break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                fluss = DataTypes.TIMESTAMP_LTZ(((LocalZonedTimestampType) type).getPrecision());
                break;
            case ARRAY:
                fluss = DataTypes.ARRAY(toFluss(((ArrayType) type).getElementType()));
                break;
            case MAP:
                fluss = DataTypes.MAP(toFluss(((MapType) type).getKeyType()), toFluss(((MapType) type).getValueType()));
                break;
            case ROW:
                List<DataField> fields = new ArrayList<>();
                for (RowType.RowField field : ((RowType) type).getFields()) {
                    fields.add(DataTypes.FIELD(field.getName(), toFluss(field.getType())));
                }
                fluss = DataTypes.ROW(fields.toArray(new DataField[0]));
                break;
            default:
                throw new UnsupportedOperationException("Columns of type " + type + " are not mapped to Fluss yet");
        }
        return fluss.copy(type.isNullable());
    }

    /**
     * Whether values of {@code declared} and {@code fluss} (Fluss types) cross between Flink and
     * Fluss in one layout: the same type but for nullability, nested field comments and the
     * precision of TIME (both a millisecond of the day; Fluss's TIME reads as {@code TIME(0)}).
     */
    static boolean sameLayout(DataType declared, DataType fluss) {
        if (declared.getTypeRoot() != fluss.getTypeRoot()) {
            return false;
        }
        switch (declared.getTypeRoot()) {
            case TIME_WITHOUT_TIME_ZONE:
                return true;
            case ARRAY:
                return sameLayout(((org.apache.fluss.types.ArrayType) declared).getElementType(),
                        ((org.apache.fluss.types.ArrayType) fluss).getElementType());
            case MAP:
                org.apache.fluss.types.MapType declaredMap = (org.apache.fluss.types.MapType) declared;
                org.apache.fluss.types.MapType flussMap = (org.apache.fluss.types.MapType) fluss;
                return sameLayout(declaredMap.getKeyType(), flussMap.getKeyType())
                        && sameLayout(declaredMap.getValueType(), flussMap.getValueType());
            case ROW:
                org.apache.fluss.types.RowType declaredRow = (org.apache.fluss.types.RowType) declared;
                org.apache.fluss.types.RowType flussRow = (org.apache.fluss.types.RowType) fluss;
                if (!declaredRow.getFieldNames().equals(flussRow.getFieldNames())) {
                    return false;
                }
                for (int i = 0; i < declaredRow.getFieldCount(); i++) {
                    if (!sameLayout(declaredRow.getTypeAt(i), flussRow.getTypeAt(i))) {
                        return false;
                    }
                }
                return true;
            default:
                return declared.copy(true).equals(fluss.copy(true));
        }
    }

    /** The Flink type of a Fluss column type. */
    static LogicalType toFlink(DataType type) {
        boolean nullable = type.isNullable();
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return new BooleanType(nullable);
            case TINYINT:
                return new TinyIntType(nullable);
            case SMALLINT:
                return new SmallIntType(nullable);
            case INTEGER:
                return new IntType(nullable);
            case BIGINT:
                return new BigIntType(nullable);
            case FLOAT:
                return new FloatType(nullable);
            case DOUBLE:
                return new DoubleType(nullable);
            case DECIMAL:
                org.apache.fluss.types.DecimalType decimal = (org.apache.fluss.types.DecimalType) type;
                return new DecimalType(nullable, decimal.getPrecision(), decimal.getScale());
            case CHAR:
                return new CharType(nullable, ((org.apache.fluss.types.CharType) type).getLength());
            case STRING:
                return new VarCharType(nullable, VarCharType.MAX_LENGTH);
            case BINARY:
                return new BinaryType(nullable, ((org.apache.fluss.types.BinaryType) type).getLength());
            case BYTES:
                return new VarBinaryType(nullable, VarBinaryType.MAX_LENGTH);
            case DATE:
                return new DateType(nullable);
            case TIME_WITHOUT_TIME_ZONE:
                // As fluss-flink gives it: Flink reads Fluss's times at second precision.
                return new TimeType(nullable, 0);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return new TimestampType(nullable, ((org.apache.fluss.types.TimestampType) type).getPrecision());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new LocalZonedTimestampType(
                        nullable, ((org.apache.fluss.types.LocalZonedTimestampType) type).getPrecision());
            case ARRAY:
                return new ArrayType(nullable, toFlink(((org.apache.fluss.types.ArrayType) type).getElementType()));
            case MAP:
                org.apache.fluss.types.MapType map = (org.apache.fluss.types.MapType) type;
                return new MapType(nullable, toFlink(map.getKeyType()), toFlink(map.getValueType()));
            case ROW:
                List<RowType.RowField> fields = new ArrayList<>();
                for (DataField field : ((org.apache.fluss.types.RowType) type).getFields()) {
                    fields.add(new RowType.RowField(field.getName(), toFlink(field.getType())));
                }
                return new RowType(nullable, fields);
            default:
                throw new UnsupportedOperationException("Fluss columns of type " + type + " are not mapped to Flink yet");
        }
    }
}
