package wmrun.flink;

import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;
import org.apache.flink.util.Collector;

/**
 * A join's pairs as lines of wmrun's join sink, with the subtask that made
 * them (a sink without wmrun's subtask_column drops it,
 * ResultLines.WithoutSubtask):
 *
 *   key,timestamp,left_timestamp,right_timestamp,left_value,right_value,
 *   fire_time,watermark,subtask
 *
 * Either join gives its pairs whole (IntervalPairs, WindowPairs), each
 * stamped as the operator stamps it: an interval join's with the later of
 * its two timestamps, a window join's with the window's maxTimestamp.
 * This function, chained after the join at its parallelism (the same
 * subtask), reads that timestamp; fire_time is milliseconds since the
 * job's processing time zero times the job's speed, as wmrun counts
 * processing time, the zero being the origin the left record carried
 * (JobOrigin), or `startMillis` (main()'s start) where it carried none
 * (a Kafka source). The watermark column is Long.MIN_VALUE:
 * the join's is not its successor's, and the cross-checks drop the
 * column. Records turns a pair into a record for the stages that read
 * the join, as wmrun's [join] value says.
 */
public final class JoinLines extends ProcessFunction<JoinLines.Pair, String> {
    private static final long serialVersionUID = 1L;

    /** The header, with the subtask column. */
    public static final String HEADER = "key,timestamp,left_timestamp,right_timestamp,left_value,"
            + "right_value,fire_time,watermark,subtask";

    /** The two records of a pair: a Flink POJO. */
    public static final class Pair {
        public TraceRecord left;
        public TraceRecord right;

        public Pair() {}

        public Pair(TraceRecord left, TraceRecord right) {
            this.left = left;
            this.right = right;
        }
    }

    /** The interval join's function: the pair, kept whole. */
    public static final class IntervalPairs extends ProcessJoinFunction<TraceRecord, TraceRecord, Pair> {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(TraceRecord left, TraceRecord right, Context ctx,
                Collector<Pair> out) {
            out.collect(new Pair(left, right));
        }
    }

    /** JoinedStreams' join function: the pair, kept whole. */
    public static final class WindowPairs implements JoinFunction<TraceRecord, TraceRecord, Pair> {
        private static final long serialVersionUID = 1L;

        @Override
        public Pair join(TraceRecord left, TraceRecord right) {
            return new Pair(left, right);
        }
    }

    /**
     * A pair as a record: its key, its timestamp, and the value wmrun's
     * [join] value names (0 left, 1 right, 2 their sum, wrapping as a long).
     */
    public static final class Records extends ProcessFunction<Pair, TraceRecord> {
        private static final long serialVersionUID = 1L;

        private final int value;

        public Records(int value) {
            this.value = value;
        }

        @Override
        public void processElement(Pair p, Context ctx, Collector<TraceRecord> out) {
            long v = value == 0 ? p.left.value : value == 1 ? p.right.value : p.left.value + p.right.value;
            TraceRecord r = new TraceRecord(0, ctx.timestamp(), p.left.key, v, 0);

            r.stringKey = p.left.stringKey;
            r.origin = p.left.origin;
            out.collect(r);
        }
    }

    private final long startMillis;
    private final double speed;

    public JoinLines(long startMillis, double speed) {
        this.startMillis = startMillis;
        this.speed = speed;
    }

    /** The header of a sink with the subtask column or not. */
    public static String header(boolean subtask) {
        return subtask ? HEADER : HEADER.substring(0, HEADER.lastIndexOf(','));
    }

    /** One pair's line (pure, for the tests). */
    public static String line(TraceRecord left, TraceRecord right, long timestamp, long fireTime,
            long watermark, int subtask) {
        Object key = left.stringKey != null ? left.stringKey : left.key;
        return TraceRecord.keyText(key) + ',' + timestamp + ',' + left.timestamp + ',' + right.timestamp
                + ',' + left.value + ',' + right.value + ',' + fireTime + ',' + watermark + ','
                + subtask;
    }

    @Override
    public void processElement(Pair p, Context ctx, Collector<String> out) {
        long origin = p.left.origin != 0 ? p.left.origin : startMillis;
        long fireTime = (long) ((System.currentTimeMillis() - origin) * speed);
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        out.collect(line(p.left, p.right, ctx.timestamp(), fireTime, Long.MIN_VALUE, subtask));
    }
}
