package dev.streamfusion.testkit.nexmark;

import dev.streamfusion.testkit.nexmark.NexmarkModel.Kind;
import dev.streamfusion.testkit.nexmark.proto.AuctionRecord;
import dev.streamfusion.testkit.nexmark.proto.BidRecord;
import dev.streamfusion.testkit.nexmark.proto.PersonRecord;

import org.apache.flink.formats.protobuf.PbFormatConfig;
import org.apache.flink.formats.protobuf.deserialize.PbRowDataDeserializationSchema;
import org.apache.flink.formats.protobuf.serialize.PbRowDataSerializationSchema;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import com.google.protobuf.Descriptors.FieldDescriptor;
import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NexmarkProtobufTest {

    @Test
    void theMessagesHoldTheRowsFieldsByNameAndOrder() {
        assertThat(fieldNames(PersonRecord.getDescriptor().getFields()))
                .isEqualTo(NexmarkProtobuf.type(Kind.PERSON).getFieldNames());
        assertThat(fieldNames(AuctionRecord.getDescriptor().getFields()))
                .isEqualTo(NexmarkProtobuf.type(Kind.AUCTION).getFieldNames());
        assertThat(fieldNames(BidRecord.getDescriptor().getFields()))
                .isEqualTo(NexmarkProtobuf.type(Kind.BID).getFieldNames());
        assertThat(NexmarkProtobuf.type(Kind.AUCTION).getFieldNames())
                .contains("date_time_millis", "expires_millis")
                .doesNotContain("date_time", "expires");
    }

    @Test
    void rowsRoundTripThroughFlinksProtobufFormat() throws Exception {
        NexmarkModel model = new NexmarkModel(3);
        for (Kind kind : Kind.values()) {
            RowType type = NexmarkProtobuf.type(kind);
            PbRowDataSerializationSchema serializer = serializer(kind);
            PbRowDataDeserializationSchema deserializer =
                    new PbRowDataDeserializationSchema(type, InternalTypeInfo.of(type), config(kind));
            deserializer.open(null);
            for (long n : new long[] {0, 1, 999}) {
                RowData event = model.row(kind, n);
                RowData row = NexmarkProtobuf.row(kind, event);
                byte[] message = serializer.serialize(row);
                assertThat(deserializer.deserialize(message)).isEqualTo(row);
                // The event time, as epoch milliseconds, where the message names it.
                int dateTime = type.getFieldIndex("date_time_millis");
                assertThat(row.getLong(dateTime)).isEqualTo(event.getTimestamp(dateTime, 3).getMillisecond());
            }
        }
        AuctionRecord auction =
                AuctionRecord.parseFrom(serializer(Kind.AUCTION).serialize(NexmarkProtobuf.row(Kind.AUCTION, model.row(Kind.AUCTION, 5))));
        assertThat(auction.getExpiresMillis()).isEqualTo(model.row(Kind.AUCTION, 5).getTimestamp(6, 3).getMillisecond());
        assertThat(auction.getId()).isEqualTo(model.row(Kind.AUCTION, 5).getLong(0));
    }

    @Test
    void theComputedColumnsGiveBackTheModelsTimestampsInUtc() throws Exception {
        assertThat(NexmarkProtobuf.columns(Kind.BID))
                .startsWith("`auction` BIGINT, ")
                .contains("`date_time_millis` BIGINT, `date_time` AS ");
        RowData bid = new NexmarkModel(1).row(Kind.BID, 12_345);
        long millis = bid.getTimestamp(5, 3).getMillisecond();
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        String columns = NexmarkProtobuf.columns(Kind.BID);
        String as = "`date_time` AS ";
        String computed = columns.substring(columns.indexOf(as) + as.length(), columns.indexOf(", `extra`"));
        List<Row> rows = new ArrayList<>();
        CloseableIterator<Row> it = tables.executeSql(
                "SELECT " + computed + " FROM (VALUES (CAST(" + millis + " AS BIGINT))) AS t(date_time_millis)").collect();
        try {
            it.forEachRemaining(rows::add);
        } finally {
            it.close();
        }
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).getField(0)).isEqualTo(bid.getTimestamp(5, 3).toLocalDateTime());
        assertThat(rows.get(0).getField(0)).isInstanceOf(LocalDateTime.class);
    }

    /** Flink's protobuf serializer of a kind's messages, opened. */
    private static PbRowDataSerializationSchema serializer(Kind kind) throws Exception {
        PbRowDataSerializationSchema serializer = new PbRowDataSerializationSchema(NexmarkProtobuf.type(kind), config(kind));
        serializer.open(null);
        return serializer;
    }

    private static PbFormatConfig config(Kind kind) {
        return new PbFormatConfig(NexmarkProtobuf.messageClass(kind).getName(), false, false, "");
    }

    private static List<String> fieldNames(List<FieldDescriptor> fields) {
        List<String> names = new ArrayList<>();
        fields.forEach(f -> names.add(f.getName()));
        return names;
    }
}
