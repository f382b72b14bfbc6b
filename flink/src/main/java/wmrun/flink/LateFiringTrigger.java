package wmrun.flink;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.triggers.TriggerResult;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Flink's EventTimeTrigger (optionally purging, as PurgingTrigger.of(it)
 * is), which also notes in the window's state whether an element fired it:
 * what wmrun's results call a late firing (allowed lateness). The window
 * function reads the note through its per-window state (the trigger's and
 * the window function's per-window state are the same state under one
 * descriptor: WindowOperator scopes both by key and window).
 */
public final class LateFiringTrigger extends Trigger<Object, TimeWindow> {
    private static final long serialVersionUID = 1L;

    /** True while the pending firing is an element's, not the timer's. */
    public static final ValueStateDescriptor<Boolean> LATE =
            new ValueStateDescriptor<>("wmrun-late-firing", Boolean.class);

    private final boolean purging;

    public LateFiringTrigger(boolean purging) {
        this.purging = purging;
    }

    private TriggerResult fire() {
        return purging ? TriggerResult.FIRE_AND_PURGE : TriggerResult.FIRE;
    }

    @Override
    public TriggerResult onElement(Object element, long timestamp, TimeWindow window, TriggerContext ctx)
            throws Exception {
        ValueState<Boolean> late = ctx.getPartitionedState(LATE);
        if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {
            late.update(true);
            return fire();
        }
        late.update(false);
        ctx.registerEventTimeTimer(window.maxTimestamp());
        return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) throws Exception {
        if (time != window.maxTimestamp()) {
            return TriggerResult.CONTINUE;
        }
        ctx.getPartitionedState(LATE).update(false);
        return fire();
    }

    @Override
    public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
        return TriggerResult.CONTINUE;
    }

    @Override
    public boolean canMerge() {
        return true;
    }

    @Override
    public void onMerge(TimeWindow window, OnMergeContext ctx) {
        /* As EventTimeTrigger: only a merged window still ahead of the
         * watermark needs its timer; one behind fires on its element. */
        if (window.maxTimestamp() > ctx.getCurrentWatermark()) {
            ctx.registerEventTimeTimer(window.maxTimestamp());
        }
    }

    @Override
    public void clear(TimeWindow window, TriggerContext ctx) throws Exception {
        ctx.deleteEventTimeTimer(window.maxTimestamp());
        ctx.getPartitionedState(LATE).clear();
    }

    @Override
    public String toString() {
        return purging ? "PurgingTrigger(LateFiringTrigger())" : "LateFiringTrigger()";
    }
}
