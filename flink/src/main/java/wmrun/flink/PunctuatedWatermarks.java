package wmrun.flink;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * The punctuated generator of wmrun's watermark = punctuated: a record
 * whose punctuate column is 1 carries a watermark at its own timestamp,
 * and one with a watermark column or field carries that watermark, each
 * emitted at once from onEvent (the timestamp first); nothing is emitted
 * periodically, so it works with the periodic interval at 0. Which
 * records carry one is the trace's to say (wmrun's generator marks
 * them, or the trace was written so); what a mark does is Flink's own
 * punctuated generation.
 *
 * Combined (wmrun's watermark = bounded, punctuated, or ascending,
 * punctuated), it is also Flink's BoundedOutOfOrdernessWatermarks: it
 * keeps the highest timestamp, from Long.MIN_VALUE + bound + 1, and
 * emits it less the bound less 1 at every periodic emission (ascending:
 * a bound of 0, as AscendingTimestampsWatermarks).
 */
public final class PunctuatedWatermarks implements WatermarkGenerator<TraceRecord> {

    private final boolean periodic;
    private final long bound;
    private long maxTimestamp;

    private PunctuatedWatermarks(boolean periodic, long bound) {
        this.periodic = periodic;
        this.bound = bound;
        this.maxTimestamp = Long.MIN_VALUE + bound + 1;
    }

    /** The strategy of a punctuated source, to which the job adds idleness. */
    public static WatermarkStrategy<TraceRecord> strategy() {
        return WatermarkStrategy.forGenerator(context -> new PunctuatedWatermarks(false, 0));
    }

    /** The marks combined with bounded out-of-orderness of boundMs. */
    public static WatermarkStrategy<TraceRecord> combinedWith(long boundMs) {
        return WatermarkStrategy.forGenerator(context -> new PunctuatedWatermarks(true, boundMs));
    }

    @Override
    public void onEvent(TraceRecord record, long eventTimestamp, WatermarkOutput output) {
        maxTimestamp = Math.max(maxTimestamp, eventTimestamp);
        if (record.punctuate) {
            output.emitWatermark(new Watermark(eventTimestamp));
        }
        if (record.watermark != null) {
            output.emitWatermark(new Watermark(record.watermark));
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        if (periodic) {
            output.emitWatermark(new Watermark(maxTimestamp - bound - 1));
        }
    }
}
