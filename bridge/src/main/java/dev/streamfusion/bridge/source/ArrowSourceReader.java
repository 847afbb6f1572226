package dev.streamfusion.bridge.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A source reader whose split readers fetch {@link ArrowRecords} and whose emitter emits rows as
 * views over their batches, or the batches whole ({@link dev.streamfusion.bridge.batch.ArrowBatch}).
 * It owns the reader's {@link FetchedBatches} and closes in the one safe
 * order: the fetchers first (no fetch adds batches after), then the batches fetched and not
 * emitted, then the allocator.
 *
 * @param <E> the record the emitter takes
 * @param <T> what the reader emits: rows, or whole batches
 * @param <SplitT> the split
 * @param <StateT> the split's mutable state
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
public abstract class ArrowSourceReader<E, T, SplitT extends SourceSplit, StateT>
        extends SingleThreadMultiplexSourceReaderBase<E, T, SplitT, StateT> {

    /**
     * How a split becomes the mutable state the emitter moves along, and back for a checkpoint.
     *
     * @param <SplitT> the split
     * @param <StateT> its state
     */
    public static final class SplitStates<SplitT, StateT> {
        private final Function<SplitT, StateT> toState;
        private final Function<StateT, SplitT> toSplit;

        private SplitStates(Function<SplitT, StateT> toState, Function<StateT, SplitT> toSplit) {
            this.toState = toState;
            this.toSplit = toSplit;
        }

        public static <SplitT, StateT> SplitStates<SplitT, StateT> of(
                Function<SplitT, StateT> toState, Function<StateT, SplitT> toSplit) {
            return new SplitStates<>(toState, toSplit);
        }
    }

    private final FetchedBatches fetched;
    private final SplitStates<SplitT, StateT> states;

    /** A reader of split readers from {@code splitReaders}, one fetcher thread. */
    protected ArrowSourceReader(
            Supplier<SplitReader<E, SplitT>> splitReaders,
            RecordEmitter<E, T, StateT> emitter,
            Configuration configuration,
            SourceReaderContext context,
            FetchedBatches fetched,
            SplitStates<SplitT, StateT> states) {
        super(splitReaders, emitter, configuration, context);
        this.fetched = fetched;
        this.states = states;
    }

    /** A reader whose fetcher manager is the connector's own. */
    protected ArrowSourceReader(
            SingleThreadFetcherManager<E, SplitT> fetcherManager,
            RecordEmitter<E, T, StateT> emitter,
            Configuration configuration,
            SourceReaderContext context,
            FetchedBatches fetched,
            SplitStates<SplitT, StateT> states) {
        super(fetcherManager, emitter, configuration, context);
        this.fetched = fetched;
        this.states = states;
    }

    @Override
    protected final StateT initializedState(SplitT split) {
        return states.toState.apply(split);
    }

    @Override
    protected final SplitT toSplitType(String splitId, StateT state) {
        return states.toSplit.apply(state);
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            fetched.close();
        }
    }
}
