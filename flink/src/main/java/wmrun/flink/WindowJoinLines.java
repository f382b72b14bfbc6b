package wmrun.flink;

import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * A window join's pairs as lines of wmrun's join sink (JoinLines's
 * columns). A JoinFunction is given the two records alone, so Pairs keeps
 * them both, and this function, chained after the join's window operator
 * at its parallelism (the same subtask), reads the pair's timestamp,
 * which the window operator set to the window's maxTimestamp, as wmrun
 * stamps the pair. The watermark column is Long.MIN_VALUE, as JoinLines's:
 * the window operator's is not its successor's, and the cross-checks
 * drop the column.
 */
public final class WindowJoinLines extends ProcessFunction<WindowJoinLines.Pair, String> {
    private static final long serialVersionUID = 1L;

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

    /** JoinedStreams' join function: the pair, kept whole. */
    public static final class Pairs implements JoinFunction<TraceRecord, TraceRecord, Pair> {
        private static final long serialVersionUID = 1L;

        @Override
        public Pair join(TraceRecord left, TraceRecord right) {
            return new Pair(left, right);
        }
    }

    private final long startMillis;
    private final double speed;

    public WindowJoinLines(long startMillis, double speed) {
        this.startMillis = startMillis;
        this.speed = speed;
    }

    @Override
    public void processElement(Pair p, Context ctx, Collector<String> out) {
        long fireTime = (long) ((System.currentTimeMillis() - startMillis) * speed);
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        out.collect(JoinLines.line(p.left, p.right, ctx.timestamp(), fireTime, Long.MIN_VALUE,
                subtask));
    }
}
