package wmrun.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A FLIP-27 source replaying a trace exported by wmrun: one split per
 * partition, each read by the subtask that reads it in wmrun, which spreads
 * partitions as KafkaSource spreads a topic's, the source's name being the
 * topic (wm_source_gen_split_owner(), doc/semantics.md 3.8), each
 * record released at its arrival divided by the job's speed, as wmrun's
 * `pacing = arrival` does. Bounded: a subtask's splits end with its last
 * record or, given an end (wmrun's replay_end, which a recording of a job
 * with a run length has), at that arrival time if it comes later.
 *
 * Arrival 0 is due at the job's origin (JobOrigin): the enumerator holds
 * every split until all readers of every replayed source of the job have
 * registered, then hands each reader its splits with that origin.
 */
public final class ReplaySource
        implements Source<TraceRecord, ReplaySplit, ArrayList<ReplaySplit>> {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final String topic;
    private final int partitions;
    private final double speed;
    private final long endMillis; /* arrival time the splits end at; -1: with the last record */
    private final JobOrigin origin;

    public ReplaySource(String path, String topic, int partitions, double speed, JobOrigin origin) {
        this(path, topic, partitions, speed, -1, origin);
    }

    public ReplaySource(String path, String topic, int partitions, double speed, long endMillis,
            JobOrigin origin) {
        if (partitions < 1 || !(speed > 0) || endMillis < -1) {
            throw new IllegalArgumentException("a replay needs partitions >= 1, speed > 0 and an end >= 0");
        }
        this.path = path;
        this.topic = topic;
        this.partitions = partitions;
        this.speed = speed;
        this.endMillis = endMillis;
        this.origin = origin;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<TraceRecord, ReplaySplit> createReader(SourceReaderContext context) {
        return new ReplayReader(speed, endMillis,
                context.metricGroup().getIOMetricGroup().getNumRecordsInCounter());
    }

    @Override
    public SplitEnumerator<ReplaySplit, ArrayList<ReplaySplit>> createEnumerator(
            SplitEnumeratorContext<ReplaySplit> context) {
        ArrayList<ReplaySplit> splits = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            splits.add(new ReplaySplit(path, topic, p, 0, -1));
        }
        return new Enumerator(context, splits, topic, origin);
    }

    @Override
    public SplitEnumerator<ReplaySplit, ArrayList<ReplaySplit>> restoreEnumerator(
            SplitEnumeratorContext<ReplaySplit> context, ArrayList<ReplaySplit> pending) {
        return new Enumerator(context, pending, topic, origin);
    }

    @Override
    public SimpleVersionedSerializer<ReplaySplit> getSplitSerializer() {
        return new ReplaySplit.Serializer();
    }

    @Override
    public SimpleVersionedSerializer<ArrayList<ReplaySplit>> getEnumeratorCheckpointSerializer() {
        return new PendingSerializer();
    }

    /**
     * The subtask that reads `partition` of `topic`: KafkaSourceEnumerator's
     * getSplitOwner, as wmrun's wm_source_gen_split_owner().
     */
    public static int owner(String topic, int partition, int parallelism) {
        int start = ((topic.hashCode() * 31) & 0x7FFFFFFF) % parallelism;
        return (start + partition) % parallelism;
    }

    /**
     * Holds the splits until every reader of the job's replays has
     * registered (JobOrigin), then hands each reader all of its own splits
     * with the origin and says there are no more; a reader that registers
     * later (again, after a failure) gets its splits at once.
     */
    static final class Enumerator implements SplitEnumerator<ReplaySplit, ArrayList<ReplaySplit>> {
        private final SplitEnumeratorContext<ReplaySplit> context;
        private final ArrayList<ReplaySplit> pending; /* not yet assigned */
        private final String topic;
        private final JobOrigin origin;
        private boolean arrived; /* at the job's origin, once */
        private long startMillis = -1; /* the origin, once every replay's readers are in */

        Enumerator(SplitEnumeratorContext<ReplaySplit> context, ArrayList<ReplaySplit> pending,
                String topic, JobOrigin origin) {
            this.context = context;
            this.pending = new ArrayList<>(pending);
            this.topic = topic;
            this.origin = origin;
        }

        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtask, String host) {}

        @Override
        public void addSplitsBack(List<ReplaySplit> splits, int subtask) {
            pending.addAll(splits);
            if (startMillis >= 0 && context.registeredReaders().containsKey(subtask)) {
                assign(subtask);
            }
        }

        @Override
        public void addReader(int subtask) {
            if (startMillis >= 0) {
                assign(subtask);
            } else if (!arrived && context.registeredReaders().size() == context.currentParallelism()) {
                arrived = true;
                origin.arrive().thenAccept(
                        millis -> context.runInCoordinatorThread(() -> begin(millis)));
            }
        }

        /** The origin is known: every registered reader gets its splits. */
        private void begin(long millis) {
            startMillis = millis;
            for (int subtask : context.registeredReaders().keySet()) {
                assign(subtask);
            }
        }

        /**
         * All of the reader's splits in one assignment: split by split, the
         * reader could poll (and emit the watermark of) the first before the
         * next arrived, and a partition that had sent nothing would not hold
         * the subtask's watermark (the cross-check saw its records late). A
         * split from a checkpoint keeps the origin it had.
         */
        private void assign(int subtask) {
            int parallelism = context.currentParallelism();
            List<ReplaySplit> mine = new ArrayList<>();
            for (Iterator<ReplaySplit> it = pending.iterator(); it.hasNext();) {
                ReplaySplit s = it.next();
                if (owner(topic, s.partition, parallelism) == subtask) {
                    mine.add(s.startMillis >= 0 ? s
                            : new ReplaySplit(s.path, s.topic, s.partition, s.position,
                                    startMillis));
                    it.remove();
                }
            }
            if (!mine.isEmpty()) {
                context.assignSplits(new SplitsAssignment<>(Map.of(subtask, mine)));
            }
            context.signalNoMoreSplits(subtask);
        }

        @Override
        public ArrayList<ReplaySplit> snapshotState(long checkpointId) {
            return new ArrayList<>(pending);
        }

        @Override
        public void close() {}
    }

    /** The enumerator's checkpoint: its unassigned splits, each as ReplaySplit.Serializer writes it. */
    static final class PendingSerializer implements SimpleVersionedSerializer<ArrayList<ReplaySplit>> {
        private final ReplaySplit.Serializer split = new ReplaySplit.Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(ArrayList<ReplaySplit> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (ReplaySplit s : splits) {
                    byte[] b = split.serialize(s);
                    out.writeInt(b.length);
                    out.write(b);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public ArrayList<ReplaySplit> deserialize(int version, byte[] data) throws IOException {
            if (version != 1) {
                throw new IOException("unknown replay checkpoint version " + version);
            }
            ArrayList<ReplaySplit> splits = new ArrayList<>();
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
                for (int n = in.readInt(); n > 0; n--) {
                    byte[] b = new byte[in.readInt()];
                    in.readFully(b);
                    splits.add(split.deserialize(split.getVersion(), b));
                }
            }
            return splits;
        }
    }
}
