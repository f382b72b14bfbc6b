package wmrun.flink;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;

import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * One partition of a replayed trace, as one split (a Kafka partition is
 * one split too), named as a Kafka split is: the source's topic (its name,
 * or its `topic`), '-', the partition, so that Flink's split metrics carry
 * the label wmrun's do (events-13; events_13 in Prometheus, whose reporter
 * filters label values). position counts the records of the partition already
 * emitted, so that a split taken from a checkpoint resumes after them;
 * startMillis is the wall-clock time arrival 0 stands for, the job's
 * origin (JobOrigin), so that every reader paces against the same start;
 * -1 in a split the enumerator holds before the origin is known.
 */
public final class ReplaySplit implements SourceSplit {
    public final String path;
    public final String topic;
    public final int partition;
    public final long position;
    public final long startMillis;

    public ReplaySplit(String path, String topic, int partition, long position, long startMillis) {
        this.path = path;
        this.topic = topic;
        this.partition = partition;
        this.position = position;
        this.startMillis = startMillis;
    }

    @Override
    public String splitId() {
        return topic + "-" + partition;
    }

    /** The split's wire format: version 2, its five fields in order. */
    public static final class Serializer implements SimpleVersionedSerializer<ReplaySplit> {
        @Override
        public int getVersion() {
            return 2;
        }

        @Override
        public byte[] serialize(ReplaySplit s) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeUTF(s.path);
                out.writeUTF(s.topic);
                out.writeInt(s.partition);
                out.writeLong(s.position);
                out.writeLong(s.startMillis);
            }
            return bytes.toByteArray();
        }

        @Override
        public ReplaySplit deserialize(int version, byte[] data) throws IOException {
            if (version != 2) {
                throw new IOException("unknown replay split version " + version);
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
                return new ReplaySplit(in.readUTF(), in.readUTF(), in.readInt(), in.readLong(),
                        in.readLong());
            }
        }
    }
}
