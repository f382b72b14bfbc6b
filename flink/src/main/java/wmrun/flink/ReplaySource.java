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
 * partition, partition p read by subtask p % parallelism (wmrun's rule for
 * a source without a topic, which is KafkaSource's with a start of 0), each
 * record released at its arrival divided by the job's speed, as wmrun's
 * `pacing = arrival` does. Bounded: the job ends with the trace.
 *
 * The enumerator fixes the wall-clock start once, when the job runs (not
 * when it is submitted, which on a MiniCluster is seconds earlier), and
 * hands it to every split.
 */
public final class ReplaySource
        implements Source<TraceRecord, ReplaySplit, ArrayList<ReplaySplit>> {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final int partitions;
    private final double speed;

    public ReplaySource(String path, int partitions, double speed) {
        if (partitions < 1 || !(speed > 0)) {
            throw new IllegalArgumentException("a replay needs partitions >= 1 and speed > 0");
        }
        this.path = path;
        this.partitions = partitions;
        this.speed = speed;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<TraceRecord, ReplaySplit> createReader(SourceReaderContext context) {
        return new ReplayReader(speed);
    }

    @Override
    public SplitEnumerator<ReplaySplit, ArrayList<ReplaySplit>> createEnumerator(
            SplitEnumeratorContext<ReplaySplit> context) {
        long start = System.currentTimeMillis();
        ArrayList<ReplaySplit> splits = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            splits.add(new ReplaySplit(path, p, 0, start));
        }
        return new Enumerator(context, splits);
    }

    @Override
    public SplitEnumerator<ReplaySplit, ArrayList<ReplaySplit>> restoreEnumerator(
            SplitEnumeratorContext<ReplaySplit> context, ArrayList<ReplaySplit> pending) {
        return new Enumerator(context, pending);
    }

    @Override
    public SimpleVersionedSerializer<ReplaySplit> getSplitSerializer() {
        return new ReplaySplit.Serializer();
    }

    @Override
    public SimpleVersionedSerializer<ArrayList<ReplaySplit>> getEnumeratorCheckpointSerializer() {
        return new PendingSerializer();
    }

    /** The subtask that reads `partition`: wmrun's wm_source_gen_split_owner() without a topic. */
    public static int owner(int partition, int parallelism) {
        return partition % parallelism;
    }

    /** Hands each reader its own splits when it registers, then says there are no more. */
    static final class Enumerator implements SplitEnumerator<ReplaySplit, ArrayList<ReplaySplit>> {
        private final SplitEnumeratorContext<ReplaySplit> context;
        private final ArrayList<ReplaySplit> pending; /* not yet assigned */

        Enumerator(SplitEnumeratorContext<ReplaySplit> context, ArrayList<ReplaySplit> pending) {
            this.context = context;
            this.pending = new ArrayList<>(pending);
        }

        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtask, String host) {}

        @Override
        public void addSplitsBack(List<ReplaySplit> splits, int subtask) {
            pending.addAll(splits);
            if (context.registeredReaders().containsKey(subtask)) {
                addReader(subtask);
            }
        }

        /**
         * All of the reader's splits in one assignment: split by split, the
         * reader could poll (and emit the watermark of) the first before the
         * next arrived, and a partition that had sent nothing would not hold
         * the subtask's watermark (the cross-check saw its records late).
         */
        @Override
        public void addReader(int subtask) {
            int parallelism = context.currentParallelism();
            List<ReplaySplit> mine = new ArrayList<>();
            for (Iterator<ReplaySplit> it = pending.iterator(); it.hasNext();) {
                ReplaySplit s = it.next();
                if (owner(s.partition, parallelism) == subtask) {
                    mine.add(s);
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
