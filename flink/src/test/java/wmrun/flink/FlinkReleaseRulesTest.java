package wmrun.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.IndexedCombinedWatermarkStatus;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkOutputMultiplexer;
import org.apache.flink.api.common.eventtime.WatermarksWithIdleness;
import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.streaming.api.operators.source.WatermarkToDataOutput;
import org.apache.flink.streaming.runtime.io.PushingAsyncDataInput;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.StatusWatermarkValve;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.clock.ManualClock;
import org.junit.jupiter.api.Test;

/**
 * Which of wmrun's behaviour flags (doc/semantics.md section 1) the Flink of the pom has: each
 * test drives that Flink's own class through the one case where the flag's rule and the older
 * rule differ (the case ids of doc/semantics.md section 10), and asserts the pom's Flink's
 * answer. Built against another Flink, a failing test says which rule that Flink has instead.
 * DRAIN_ACTIVE_BEFORE_MAX needs a running task and is read from the bytecode (section 1).
 */
class FlinkReleaseRulesTest {
    /** What a multiplexer or a generator said, in section 10's notation. */
    private static final class Said implements WatermarkOutput {
        final List<String> what = new ArrayList<>();

        @Override
        public void emitWatermark(Watermark watermark) {
            what.add("W(" + watermark.getTimestamp() + ")");
        }

        @Override
        public void markIdle() {
            what.add("IDLE");
        }

        @Override
        public void markActive() {
            what.add("ACTIVE");
        }

        String take() {
            String s = String.join(" ", what);
            what.clear();
            return s;
        }
    }

    /** What a valve or a data output sent downstream, in the same notation. */
    private static final class Sent implements PushingAsyncDataInput.DataOutput<Object> {
        final List<String> what = new ArrayList<>();

        @Override
        public void emitRecord(StreamRecord<Object> record) {
            what.add("R");
        }

        @Override
        public void emitWatermark(org.apache.flink.streaming.api.watermark.Watermark watermark) {
            what.add("W(" + watermark.getTimestamp() + ")");
        }

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {
            what.add(status.isIdle() ? "IDLE" : "ACTIVE");
        }

        @Override
        public void emitLatencyMarker(LatencyMarker marker) {}

        @Override
        public void emitRecordAttributes(RecordAttributes attributes) {}

        @Override
        public void emitWatermark(WatermarkEvent watermark) {}

        String take() {
            String s = String.join(" ", what);
            what.clear();
            return s;
        }
    }

    /** A generator that never has a watermark of its own: only idleness speaks. */
    private static final class Silent implements WatermarkGenerator<Object> {
        @Override
        public void onEvent(Object event, long timestamp, WatermarkOutput output) {}

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /** IDLE_MARK_ONCE (G-11): an idle generator's later probes repeat nothing. */
    @Test
    void idleGeneratorSaysIdleOnceWhichIsIdleMarkOnce() {
        /* Not at 0: the countdown's start time 0 means "not started". */
        ManualClock clock = new ManualClock(1_000_000_000L);
        WatermarksWithIdleness<Object> g =
                new WatermarksWithIdleness<>(new Silent(), Duration.ofMillis(10), clock);
        Said out = new Said();

        g.onPeriodicEmit(out);
        clock.advanceTime(Duration.ofMillis(11));
        g.onPeriodicEmit(out);
        assertEquals("IDLE", out.take());
        g.onPeriodicEmit(out);
        g.onPeriodicEmit(out);
        assertEquals("", out.take(), "idle generator repeats markIdle: IDLE_MARK_ONCE is off");
    }

    /** MUX_ALLIDLE_FLUSH_MAX (M-6): the last split going idle flushes the maximum. */
    @Test
    void allSplitsIdleFlushTheirMaximumWhichIsMuxAllIdleFlushMax() {
        Said out = new Said();
        WatermarkOutputMultiplexer mux = new WatermarkOutputMultiplexer(out);
        mux.registerNewOutput("s1");
        mux.registerNewOutput("s2");
        WatermarkOutput s1 = mux.getImmediateOutput("s1");
        WatermarkOutput s2 = mux.getImmediateOutput("s2");

        s1.emitWatermark(new Watermark(5));
        s2.emitWatermark(new Watermark(2));
        assertEquals("W(2)", out.take());
        s1.markIdle();
        assertEquals("", out.take());
        s2.markIdle();
        assertEquals("W(5) IDLE", out.take(), "no flush to the maximum: MUX_ALLIDLE_FLUSH_MAX is off");
    }

    /** MUX_ALLIDLE_FLUSH_MAX (M-7): the same through deferred outputs, at the combine. */
    @Test
    void allDeferredSplitsIdleFlushTheirMaximumAtTheCombine() {
        Said out = new Said();
        WatermarkOutputMultiplexer mux = new WatermarkOutputMultiplexer(out);
        mux.registerNewOutput("s1");
        mux.registerNewOutput("s2");
        WatermarkOutput s1 = mux.getDeferredOutput("s1");
        WatermarkOutput s2 = mux.getDeferredOutput("s2");

        s1.emitWatermark(new Watermark(5));
        s1.markIdle();
        s2.emitWatermark(new Watermark(2));
        s2.markIdle();
        assertEquals("", out.take());
        mux.onPeriodicEmit();
        assertEquals("W(5) IDLE", out.take(), "no flush to the maximum: MUX_ALLIDLE_FLUSH_MAX is off");
    }

    /**
     * MUX_ALLIDLE_FLUSH_MAX (T-1): a two-input operator's combination, as AbstractStreamOperator
     * keeps it, moves to the maximum when its second input goes idle.
     */
    @Test
    void bothInputsIdleMoveTheCombinationToTheMaximum() {
        IndexedCombinedWatermarkStatus c = IndexedCombinedWatermarkStatus.forInputsCount(2);

        c.updateWatermark(0, 5);
        c.updateWatermark(1, 2);
        assertEquals(2, c.getCombinedWatermark());
        c.updateStatus(0, true);
        assertEquals(2, c.getCombinedWatermark());
        assertEquals(true, c.updateStatus(1, true), "no flush to the maximum: MUX_ALLIDLE_FLUSH_MAX is off");
        assertEquals(5, c.getCombinedWatermark());
        assertEquals(true, c.isIdle());
    }

    /** MUX_EMPTY_IS_IDLE (M-18): a multiplexer left without splits says nothing. */
    @Test
    void multiplexerWithoutSplitsSaysNothingWhichIsNotMuxEmptyIsIdle() {
        Said out = new Said();
        WatermarkOutputMultiplexer mux = new WatermarkOutputMultiplexer(out);
        mux.registerNewOutput("s1");
        mux.getImmediateOutput("s1").emitWatermark(new Watermark(1));
        assertEquals("W(1)", out.take());
        mux.unregisterOutput("s1");
        mux.onPeriodicEmit();
        assertEquals("", out.take(), "IDLE once no split is left: MUX_EMPTY_IS_IDLE is on");
    }

    /** MUX_REACTIVATE (S-4, T-3): a split resuming behind the watermark does not reactivate. */
    @Test
    void splitResumingBehindTheWatermarkStaysIdleWhichIsNotMuxReactivate() throws Exception {
        Said said = new Said();
        WatermarkOutputMultiplexer mux = new WatermarkOutputMultiplexer(said);
        mux.registerNewOutput("s1");
        WatermarkOutput s1 = mux.getImmediateOutput("s1");

        s1.emitWatermark(new Watermark(5));
        s1.markIdle();
        assertEquals("W(5) IDLE", said.take());
        s1.emitWatermark(new Watermark(3));
        assertEquals("", said.take(), "the multiplexer reactivates: MUX_REACTIVATE is on");

        Sent sent = new Sent();
        WatermarkToDataOutput data = new WatermarkToDataOutput(sent);
        data.emitWatermark(new Watermark(5));
        data.markIdle();
        assertEquals("W(5) IDLE", sent.take());
        data.emitWatermark(new Watermark(4));
        assertEquals("", sent.take(), "the data output reactivates: MUX_REACTIVATE is on");
        data.emitWatermark(new Watermark(6));
        assertEquals("ACTIVE W(6)", sent.take());
    }

    private static void valve(StatusWatermarkValve v, Sent out, String step, String expected)
            throws Exception {
        String[] w = step.split(" ");
        int channel = Integer.parseInt(w[1]);
        if (w[0].equals("wm")) {
            v.inputWatermark(
                    new org.apache.flink.streaming.api.watermark.Watermark(Long.parseLong(w[2])),
                    channel,
                    out);
        } else {
            v.inputWatermarkStatus(
                    w[0].equals("idle") ? WatermarkStatus.IDLE : WatermarkStatus.ACTIVE,
                    channel,
                    out);
        }
        assertEquals(expected, out.take(), step);
    }

    /** VALVE_FLUSH_UNCONDITIONAL (V-15): the last channel idle is unaligned, so no flush. */
    @Test
    void valveFlushesOnlyAnAlignedLastChannelWhichIsNotValveFlushUnconditional() throws Exception {
        StatusWatermarkValve v = new StatusWatermarkValve(3);
        Sent out = new Sent();
        valve(v, out, "wm 0 100", "");
        valve(v, out, "wm 1 50", "");
        valve(v, out, "wm 2 70", "W(50)");
        valve(v, out, "idle 1", "W(70)");
        valve(v, out, "active 1", "");
        valve(v, out, "wm 1 60", "");
        valve(v, out, "idle 0", "");
        valve(v, out, "idle 2", "");
        valve(v, out, "idle 1", "IDLE");
    }

    /** VALVE_REDERIVE_ON_ACTIVE (V-16): a returning channel that is the only aligned one stalls. */
    @Test
    void valveStallsOnAReturningChannelWhichIsNotValveRederiveOnActive() throws Exception {
        StatusWatermarkValve v = new StatusWatermarkValve(3);
        Sent out = new Sent();
        valve(v, out, "wm 0 10", "");
        valve(v, out, "wm 1 7", "");
        valve(v, out, "idle 2", "W(7)");
        valve(v, out, "active 2", "");
        valve(v, out, "idle 0", "");
        valve(v, out, "idle 1", "");
        valve(v, out, "active 0", "");
        valve(v, out, "idle 2", "");
    }
}
