package dev.streamfusion.kafka.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;

import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The streamfusion-kafka sink: rows are encoded natively a batch at a time (values and keys, one
 * call each) and the encoded records go through Flink's own {@link KafkaSink}, built as the stock
 * table sink builds it. Flink's writer sends them and flushes on every checkpoint (at-least-once),
 * or writes them in Kafka transactions that its committer commits when the checkpoint completes
 * and aborts after a failure (exactly-once); its writer state, committables and transaction
 * cleanup are Flink's, so they recover exactly as the stock sink's do.
 */
@Internal
public final class JavaRungSink
        implements TwoPhaseCommittingStatefulSink<RowData, KafkaWriterState, KafkaCommittable>,
                SupportsPostCommitTopology<KafkaCommittable> {

    private static final long serialVersionUID = 1L;

    private final KafkaSink<EncodedRecord> kafka;
    private final String format;
    private final HashMap<String, String> formatOptions;
    private final RecordLayout layout;

    /**
     * @param partitioner Flink's partitioner for the table ({@code sink.partitioner}), or {@code
     *     null} for the producer's own (the default, and round-robin through its properties)
     * @param transactionalIdPrefix for exactly-once: the prefix of the transactional ids
     */
    public JavaRungSink(
            Properties producerProperties,
            String topic,
            String format,
            Map<String, String> formatOptions,
            RecordLayout layout,
            KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee,
            String transactionalIdPrefix,
            TransactionNamingStrategy transactionNamingStrategy) {
        KafkaSinkBuilder<EncodedRecord> builder =
                KafkaSink.<EncodedRecord>builder()
                        .setKafkaProducerConfig(producerProperties)
                        .setDeliveryGuarantee(deliveryGuarantee)
                        .setRecordSerializer(new EncodedRecordSchema(topic, partitioner));
        if (transactionalIdPrefix != null) {
            builder.setTransactionalIdPrefix(transactionalIdPrefix);
        }
        if (transactionNamingStrategy != null) {
            builder.setTransactionNamingStrategy(transactionNamingStrategy);
        }
        this.kafka = builder.build();
        this.format = format;
        this.formatOptions = new HashMap<>(formatOptions);
        this.layout = layout;
    }

    @Override
    public PrecommittingStatefulSinkWriter<RowData, KafkaWriterState, KafkaCommittable> createWriter(
            WriterInitContext context) throws IOException {
        return encoding(kafka.createWriter(context), context);
    }

    @Override
    public PrecommittingStatefulSinkWriter<RowData, KafkaWriterState, KafkaCommittable> restoreWriter(
            WriterInitContext context, Collection<KafkaWriterState> states) throws IOException {
        return encoding(kafka.restoreWriter(context, states), context);
    }

    private JavaRungWriter encoding(
            PrecommittingStatefulSinkWriter<EncodedRecord, KafkaWriterState, KafkaCommittable> writer,
            WriterInitContext context)
            throws IOException {
        try {
            return new JavaRungWriter(
                    writer,
                    format,
                    formatOptions,
                    layout,
                    context.isObjectReuseEnabled() ? context.createInputSerializer() : null,
                    context.getProcessingTimeService());
        } catch (RuntimeException e) {
            try {
                writer.close();
            } catch (Exception closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(CommitterInitContext context) {
        return kafka.createCommitter(context);
    }

    @Override
    public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() {
        return kafka.getCommittableSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaWriterState> getWriterStateSerializer() {
        return kafka.getWriterStateSerializer();
    }

    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<KafkaCommittable>> committables) {
        kafka.addPostCommitTopology(committables);
    }
}
