package wmrun.flink;

import org.apache.flink.api.common.functions.AggregateFunction;

/**
 * wmrun's window aggregates, kept incrementally as Flink's AggregateFunction
 * keeps them: count, sum (wrapping like a Java long, as in wmrun), min and
 * max of the records' values; avg is sum / count when the window fires.
 * The accumulator is {count, sum, min, max, origin}, origin the job's
 * processing time zero that the records carry (TraceRecord.origin, 0 for
 * none), for the window function's fire_time.
 */
public final class Aggregates implements AggregateFunction<TraceRecord, long[], long[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public long[] createAccumulator() {
        return new long[] {0, 0, Long.MAX_VALUE, Long.MIN_VALUE, 0};
    }

    @Override
    public long[] add(TraceRecord r, long[] a) {
        a[0]++;
        a[1] += r.value;
        a[2] = Math.min(a[2], r.value);
        a[3] = Math.max(a[3], r.value);
        a[4] = Math.max(a[4], r.origin);
        return a;
    }

    @Override
    public long[] getResult(long[] a) {
        return a;
    }

    @Override
    public long[] merge(long[] a, long[] b) {
        return new long[] {a[0] + b[0], a[1] + b[1], Math.min(a[2], b[2]), Math.max(a[3], b[3]),
                Math.max(a[4], b[4])};
    }
}
