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
 * periodically, so it
 * works with the periodic interval at 0. Which records carry one is the
 * trace's to say (wmrun's generator marks them, or the trace was written
 * so); what a mark does is Flink's own punctuated generation.
 */
public final class PunctuatedWatermarks implements WatermarkGenerator<TraceRecord> {

    /** The strategy of a punctuated source, to which the job adds idleness. */
    public static WatermarkStrategy<TraceRecord> strategy() {
        return WatermarkStrategy.forGenerator(context -> new PunctuatedWatermarks());
    }

    @Override
    public void onEvent(TraceRecord record, long eventTimestamp, WatermarkOutput output) {
        if (record.punctuate) {
            output.emitWatermark(new Watermark(eventTimestamp));
        }
        if (record.watermark != null) {
            output.emitWatermark(new Watermark(record.watermark));
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
}
