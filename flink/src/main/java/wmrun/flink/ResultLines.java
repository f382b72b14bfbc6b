package wmrun.flink;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * A window's aggregates as one line of wmrun's window sink, with the
 * subtask that fired it (a sink without wmrun's subtask_column drops it,
 * WithoutSubtask):
 *
 *   key,window_start,window_end[,count][,sum][,min][,max][,avg],
 *   fire_time,watermark,late_firing,subtask
 *
 * fire_time is milliseconds since the job's processing time zero times
 * the job's speed, as wmrun counts processing time, and so are a
 * processing-time window's bounds (ProcessingWindows). The zero is the
 * origin the window's records carried (JobOrigin), or `startMillis`
 * (main()'s start) where none did (a Kafka source);
 * watermark is the operator's when it fired; avg is printed as Java's
 * shortest round-trip double, where wmrun prints 17 significant digits.
 * K is the window's key: Long, or String for a Kafka source's string keys
 * (TraceRecord.StringKey), printed as wmrun's sink prints them.
 */
public final class ResultLines<K> extends ProcessWindowFunction<long[], String, K, TimeWindow> {
    private static final long serialVersionUID = 1L;

    /** The aggregates in wmrun's column order. */
    public static final String[] NAMES = {"count", "sum", "min", "max", "avg"};

    private final boolean[] columns;
    private final boolean lateFirings;
    private final long startMillis;
    private final double speed;
    private final boolean processingTime;

    /**
     * columns: which of NAMES to print, in that order; lateFirings: whether
     * the window can fire late, and so whether to read LateFiringTrigger's
     * note (false for merging windows, whose per-window state Flink does
     * not allow a window function, and whose allowed lateness the export
     * refuses).
     */
    public ResultLines(boolean[] columns, boolean lateFirings, long startMillis, double speed) {
        this(columns, lateFirings, startMillis, speed, false);
    }

    /** processingTime: the windows are on the wall clock, their bounds printed in wmrun's processing time. */
    public ResultLines(boolean[] columns, boolean lateFirings, long startMillis, double speed,
            boolean processingTime) {
        this.columns = columns.clone();
        this.lateFirings = lateFirings;
        this.startMillis = startMillis;
        this.speed = speed;
        this.processingTime = processingTime;
    }

    /** A wall-clock time as wmrun's processing time: ms since the origin, times the speed. */
    private long processing(long wallMillis, long origin) {
        return Math.round((wallMillis - origin) * speed);
    }

    /** The header of a sink of these columns, with the subtask column or not. */
    public static String header(boolean[] columns, boolean subtask) {
        String h = header(columns);
        return subtask ? h : h.substring(0, h.lastIndexOf(','));
    }

    /** The header of these columns and the subtask column. */
    public static String header(boolean[] columns) {
        StringBuilder b = new StringBuilder("key,window_start,window_end");
        for (int i = 0; i < NAMES.length; i++) {
            if (columns[i]) {
                b.append(',').append(NAMES[i]);
            }
        }
        return b.append(",fire_time,watermark,late_firing,subtask").toString();
    }

    /** One result line (pure, for the tests). */
    public static String line(Object key, long start, long end, long[] acc, boolean[] columns,
            long fireTime, long watermark, boolean late, int subtask) {
        StringBuilder b = new StringBuilder();
        b.append(TraceRecord.keyText(key)).append(',').append(start).append(',').append(end);
        for (int i = 0; i < 4; i++) {
            if (columns[i]) {
                b.append(',').append(acc[i]);
            }
        }
        if (columns[4]) {
            b.append(',').append((double) acc[1] / (double) acc[0]);
        }
        return b.append(',').append(fireTime).append(',').append(watermark).append(',')
                .append(late).append(',').append(subtask).toString();
    }

    /** A line without its last column, the subtask: for a sink without wmrun's subtask_column. */
    public static final class WithoutSubtask implements MapFunction<String, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(String line) {
            return line.substring(0, line.lastIndexOf(','));
        }
    }

    @Override
    public void process(K key, Context ctx, Iterable<long[]> results, org.apache.flink.util.Collector<String> out)
            throws Exception {
        boolean isLate = false;
        if (lateFirings) {
            ValueState<Boolean> late = ctx.windowState().getState(LateFiringTrigger.LATE);
            isLate = Boolean.TRUE.equals(late.value());
        }
        long now = System.currentTimeMillis();
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        TimeWindow w = ctx.window();
        for (long[] acc : results) {
            long origin = acc[4] != 0 ? acc[4] : startMillis;
            long fireTime = (long) ((now - origin) * speed);
            long start = processingTime ? processing(w.getStart(), origin) : w.getStart();
            long end = processingTime ? processing(w.getEnd(), origin) : w.getEnd();
            out.collect(line(key, start, end, acc, columns, fireTime,
                    ctx.currentWatermark(), isLate, subtask));
        }
    }
}
