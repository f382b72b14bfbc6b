package wmrun.flink;

import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;
import org.apache.flink.util.Collector;

/**
 * An interval join's pair as one line of wmrun's join sink, with the
 * subtask that made it (a sink without wmrun's subtask_column drops it,
 * ResultLines.WithoutSubtask):
 *
 *   key,timestamp,left_timestamp,right_timestamp,left_value,right_value,
 *   fire_time,watermark,subtask
 *
 * timestamp is the pair's, the later of the two, as the operator stamps
 * it (ctx.getTimestamp()); fire_time is milliseconds since `startMillis`
 * (when the job was submitted) times the job's speed, as wmrun counts
 * processing time; watermark is the join's when it paired them.
 */
public final class JoinLines extends ProcessJoinFunction<TraceRecord, TraceRecord, String> {
    private static final long serialVersionUID = 1L;

    /** The header, with the subtask column. */
    public static final String HEADER = "key,timestamp,left_timestamp,right_timestamp,left_value,"
            + "right_value,fire_time,watermark,subtask";

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
    public void processElement(TraceRecord left, TraceRecord right, Context ctx, Collector<String> out) {
        long fireTime = (long) ((System.currentTimeMillis() - startMillis) * speed);
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        // The operator's watermark is not in the join function's context:
        // the line's watermark column is left to wmrun, which the
        // cross-checks drop with fire_time.
        out.collect(line(left, right, ctx.getTimestamp(), fireTime, Long.MIN_VALUE, subtask));
    }
}
