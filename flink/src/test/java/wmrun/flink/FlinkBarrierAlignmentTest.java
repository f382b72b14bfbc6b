package wmrun.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.runtime.checkpoint.CheckpointMetaData;
import org.apache.flink.runtime.checkpoint.CheckpointMetricsBuilder;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.io.network.api.CancelCheckpointMarker;
import org.apache.flink.runtime.io.network.api.CheckpointBarrier;
import org.apache.flink.runtime.io.network.partition.consumer.CheckpointableInput;
import org.apache.flink.runtime.jobgraph.tasks.CheckpointableTask;
import org.apache.flink.streaming.runtime.io.checkpointing.SingleCheckpointBarrierHandler;
import org.apache.flink.util.clock.ManualClock;
import org.junit.jupiter.api.Test;

/**
 * The cases of tests/unit/check_barrier_align.c (doc/semantics.md section 10.8) replayed on the
 * pom's Flink's own SingleCheckpointBarrierHandler.aligned(), with checkpoints after tasks finish
 * on (Flink's default), in the same notation: each step's decision and the blocked channels after
 * it must be the ones operators/barrier_align.c gives. Flink does not report the checkpoint a
 * newer cancel marker drops, so "drop(N)" is left out of the expectations here; steps that
 * Flink's network never delivers (a second END of a channel, a barrier after END), which wmrun
 * ignores, are left out of the cases.
 */
class FlinkBarrierAlignmentTest {
    /** One input gate whose blocked channels are what the handler asked for. */
    private static final class Gate implements CheckpointableInput {
        final List<InputChannelInfo> channels = new ArrayList<>();
        final TreeSet<Integer> blocked = new TreeSet<>();

        Gate(int n) {
            for (int c = 0; c < n; c++) {
                channels.add(new InputChannelInfo(0, c));
            }
        }

        @Override
        public void blockConsumption(InputChannelInfo channel) {
            blocked.add(channel.getInputChannelIdx());
        }

        @Override
        public void resumeConsumption(InputChannelInfo channel) {
            blocked.remove(channel.getInputChannelIdx());
        }

        @Override
        public List<InputChannelInfo> getChannelInfos() {
            return channels;
        }

        @Override
        public int getNumberOfInputChannels() {
            return channels.size();
        }

        @Override
        public void checkpointStarted(CheckpointBarrier barrier) {}

        @Override
        public void checkpointStopped(long cancelledCheckpointId) {}

        @Override
        public int getInputGateIndex() {
            return 0;
        }

        @Override
        public void convertToPriorityEvent(int channel, int sequenceNumber) {}
    }

    /** The task: what the handler told it, in the C test's notation. */
    private static final class Task implements CheckpointableTask {
        final List<String> said = new ArrayList<>();
        int aligned;
        int aborted;

        @Override
        public CompletableFuture<Boolean> triggerCheckpointAsync(
                CheckpointMetaData metaData, CheckpointOptions options) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void triggerCheckpointOnBarrier(
                CheckpointMetaData metaData,
                CheckpointOptions options,
                CheckpointMetricsBuilder metrics) {
            said.add("aligned(" + metaData.getCheckpointId() + ")");
            aligned++;
        }

        @Override
        public Future<Void> notifyCheckpointCompleteAsync(long checkpointId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Future<Void> notifyCheckpointAbortAsync(
                long checkpointId, long latestCompletedCheckpointId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Future<Void> notifyCheckpointSubsumedAsync(long checkpointId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void abortCheckpointOnBarrier(long checkpointId, CheckpointException cause) {
            CheckpointFailureReason reason = cause.getCheckpointFailureReason();
            String why =
                    reason == CheckpointFailureReason.CHECKPOINT_DECLINED_SUBSUMED
                            ? "subsumed"
                            : reason
                                            == CheckpointFailureReason
                                                    .CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER
                                    ? "cancelled"
                                    : reason.toString();
            said.add("abort(" + checkpointId + "," + why + ")");
            aborted++;
        }
    }

    /** A handler over n channels, its gate, task and clock. */
    private static final class Input {
        final Gate gate;
        final Task task = new Task();
        final ManualClock clock = new ManualClock();
        final SingleCheckpointBarrierHandler handler;
        final TreeSet<Integer> ended = new TreeSet<>();

        Input(int n) {
            gate = new Gate(n);
            handler =
                    SingleCheckpointBarrierHandler.aligned(
                            "wmrun", task, clock, n, (callable, delay) -> () -> {}, true, gate);
        }

        void barrier(int channel, long id, long timestampMs) throws IOException {
            handler.processBarrier(
                    new CheckpointBarrier(
                            id, timestampMs, CheckpointOptions.forCheckpointWithDefaultLocation()),
                    gate.channels.get(channel),
                    false);
        }

        void end(int channel) throws IOException {
            ended.add(channel);
            handler.processEndOfPartition(gate.channels.get(channel));
        }

        /** Blocked as wmrun says it: asked to block, not resumed, not ended. */
        String blocked() {
            List<String> open = new ArrayList<>();
            for (int c : gate.blocked) {
                if (!ended.contains(c)) {
                    open.add(Integer.toString(c));
                }
            }
            return String.join(" ", open);
        }

        void atMs(long ms) {
            clock.advanceTime(
                    ms * 1_000_000 - clock.relativeTimeNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** Run one case: steps of {input, decision, blocked}, as in the C test. */
    private static void run(String id, int n, int aligned, int aborted, String[][] steps)
            throws IOException {
        Input in = new Input(n);
        for (int s = 0; s < steps.length; s++) {
            String[] step = steps[s];
            String[] word = step[0].split(" ");
            in.atMs(s + 1);
            int channel = -1;
            switch (word[0]) {
                case "b":
                    channel = Integer.parseInt(word[1]);
                    in.barrier(channel, Long.parseLong(word[2]), 0);
                    break;
                case "e":
                    in.end(Integer.parseInt(word[1]));
                    break;
                case "x":
                    in.handler.processCancellationBarrier(
                            new CancelCheckpointMarker(Long.parseLong(word[1])),
                            in.gate.channels.get(0));
                    break;
                default:
                    throw new IllegalArgumentException(step[0]);
            }
            List<String> said = new ArrayList<>(in.task.said);
            in.task.said.clear();
            if (channel >= 0 && in.gate.blocked.contains(channel)) {
                said.add("block");
            }
            String where = id + " step " + (s + 1) + " (" + step[0] + ")";
            assertEquals(step[1].replaceAll(" ?drop\\(\\d+\\)", ""), String.join(" ", said), where);
            assertEquals(step[2], in.blocked(), where + ": blocked");
        }
        assertEquals(aligned, in.task.aligned, id + ": aligned");
        assertEquals(aborted, in.task.aborted, id + ": aborted");
    }

    @Test
    void flinkAlignsAsTheCasesSay() throws IOException {
        run("B-1", 1, 6, 0, new String[][] {
            {"b 0 1", "aligned(1)", ""}, {"b 0 2", "aligned(2)", ""}, {"b 0 3", "aligned(3)", ""},
            {"b 0 4", "aligned(4)", ""}, {"b 0 5", "aligned(5)", ""}, {"b 0 6", "aligned(6)", ""},
            {"e 0", "", ""}});
        run("B-2", 3, 4, 0, new String[][] {
            {"b 1 1", "block", "1"}, {"b 2 1", "block", "1 2"}, {"b 0 1", "aligned(1)", ""},
            {"b 0 2", "block", "0"}, {"b 1 2", "block", "0 1"}, {"b 2 2", "aligned(2)", ""},
            {"b 2 3", "block", "2"}, {"b 0 3", "block", "0 2"}, {"b 1 3", "aligned(3)", ""},
            {"b 1 4", "block", "1"}, {"b 2 4", "block", "1 2"}, {"b 0 4", "aligned(4)", ""},
            {"e 0", "", ""}, {"e 1", "", ""}, {"e 2", "", ""}});
        run("B-3", 3, 2, 2, new String[][] {
            {"b 1 1", "block", "1"}, {"b 2 1", "block", "1 2"}, {"b 0 1", "aligned(1)", ""},
            {"b 1 2", "block", "1"}, {"b 0 2", "block", "0 1"},
            {"b 2 3", "abort(2,subsumed) block", "2"}, {"b 0 3", "block", "0 2"},
            {"b 1 4", "abort(3,subsumed) block", "1"}, {"e 0", "", "1"},
            {"e 2", "aligned(4)", ""}, {"e 1", "", ""}});
        run("B-4", 2, 0, 1, new String[][] {
            {"b 0 1", "block", "0"}, {"x 3", "abort(3,cancelled) drop(1)", ""}, {"x 2", "", ""},
            {"x 3", "", ""}});
        run("B-5", 4, 3, 0, new String[][] {
            {"e 2", "", ""}, {"e 1", "", ""}, {"b 3 2", "block", "3"},
            {"b 0 2", "aligned(2)", ""}, {"b 0 3", "block", "0"}, {"b 3 3", "aligned(3)", ""},
            {"e 0", "", ""}, {"b 3 4", "aligned(4)", ""}, {"e 3", "", ""}});
        run("B-6", 3, 2, 0, new String[][] {
            {"b 0 1", "block", "0"}, {"b 1 1", "block", "0 1"}, {"b 2 1", "aligned(1)", ""},
            {"b 2 2", "block", "2"}, {"b 0 2", "block", "0 2"}, {"e 1", "aligned(2)", ""},
            {"e 2", "", ""}, {"e 0", "", ""}});
        run("B-7", 1, 3, 2, new String[][] {
            {"b 0 1", "aligned(1)", ""}, {"b 0 2", "aligned(2)", ""},
            {"x 4", "abort(4,cancelled)", ""}, {"b 0 5", "aligned(5)", ""},
            {"x 6", "abort(6,cancelled)", ""}});
        run("B-8", 3, 3, 3, new String[][] {
            {"b 1 1", "block", "1"}, {"b 2 1", "block", "1 2"}, {"b 0 1", "aligned(1)", ""},
            {"b 0 2", "block", "0"}, {"b 2 2", "block", "0 2"},
            {"x 2", "abort(2,cancelled)", ""}, {"b 1 3", "block", "1"},
            {"b 2 3", "block", "1 2"}, {"b 0 3", "aligned(3)", ""},
            {"x 4", "abort(4,cancelled)", ""}, {"b 2 4", "", ""}, {"b 0 4", "", ""},
            {"b 2 5", "block", "2"}, {"b 1 5", "block", "1 2"}, {"b 0 5", "aligned(5)", ""},
            {"x 6", "abort(6,cancelled)", ""}, {"x 6", "", ""}, {"b 0 6", "", ""}});
        run("B-9", 3, 1, 1, new String[][] {
            {"b 1 1", "block", "1"}, {"x 1", "abort(1,cancelled)", ""}, {"b 1 2", "block", "1"},
            {"b 2 1", "", "1"}, {"b 0 2", "block", "0 1"}, {"b 2 2", "aligned(2)", ""}});
        run("B-10", 3, 1, 1, new String[][] {
            {"b 1 3", "block", "1"}, {"b 0 3", "block", "0 1"},
            {"b 2 5", "abort(3,subsumed) block", "2"}, {"x 3", "", "2"},
            {"b 0 5", "block", "0 2"}, {"b 1 5", "aligned(5)", ""}});
        run("B-11", 3, 1, 0, new String[][] {
            {"b 0 1", "block", "0"}, {"b 1 1", "block", "0 1"}, {"e 2", "aligned(1)", ""}});
        run("B-12", 3, 1, 0, new String[][] {
            {"b 0 2", "block", "0"}, {"b 1 2", "block", "0 1"}, {"e 1", "", "0"},
            {"b 2 2", "aligned(2)", ""}});
        run("B-13", 3, 2, 0, new String[][] {
            {"e 2", "", ""}, {"b 0 6", "block", "0"}, {"b 1 6", "aligned(6)", ""},
            {"e 1", "", ""}, {"b 0 7", "aligned(7)", ""}});
        run("B-14", 4, 0, 0, new String[][] {
            {"e 0", "", ""}, {"e 3", "", ""}, {"e 1", "", ""}, {"e 2", "", ""}});
        run("B-15", 2, 3, 0, new String[][] {
            {"b 0 -1", "", ""}, {"b 0 0", "block", "0"}, {"b 1 0", "aligned(0)", ""},
            {"b 0 5", "block", "0"}, {"b 1 3", "", "0"}, {"b 1 5", "aligned(5)", ""},
            {"b 0 4", "", ""}, {"b 0 5", "", ""}, {"b 1 7", "block", "1"}, {"b 0 6", "", "1"},
            {"x 6", "", "1"}, {"b 0 7", "aligned(7)", ""}});
        run("B-16", 3, 0, 1, new String[][] {
            {"b 2 8", "block", "2"}, {"x 8", "abort(8,cancelled)", ""}, {"b 0 8", "", ""},
            {"b 1 8", "", ""}, {"x 8", "", ""}});
        run("B-17", 2, 1, 1, new String[][] {
            {"b 0 5", "block", "0"}, {"e 0", "", ""},
            {"b 1 6", "abort(5,subsumed) aligned(6)", ""}});
        run("B-18", 2, 1, 0, new String[][] {
            {"b 0 1", "block", "0"}, {"e 1", "aligned(1)", ""}, {"e 0", "", ""}});
        run("B-19", 2, 1, 1, new String[][] {
            {"b 0 1", "block", "0"}, {"b 0 2", "abort(1,subsumed) block", "0"},
            {"b 1 2", "aligned(2)", ""}});
    }

    /**
     * test_barrier_align_times_alignment_on_given_clock and
     * test_barrier_align_times_only_completed_alignments in milliseconds (Flink's start delay has
     * millisecond resolution): alignment time and start delay as Flink computes them.
     */
    @Test
    void flinkTimesAlignmentAsTheUnitTestsSay() throws IOException {
        Input in = new Input(3);
        in.atMs(1000);
        in.barrier(1, 1, 100);
        in.atMs(1500);
        in.barrier(0, 1, 100);
        in.atMs(4000);
        in.barrier(2, 1, 100);
        assertEquals(3000_000_000L, in.handler.getAlignmentDurationNanos());
        assertEquals(900_000_000L, in.handler.getCheckpointStartDelayNanos());
        in.atMs(6000);
        in.barrier(0, 2, 5000);
        in.atMs(6500);
        in.barrier(1, 2, 5000);
        in.atMs(9000);
        in.end(2);
        assertEquals(2, in.task.aligned);
        assertEquals(3000_000_000L, in.handler.getAlignmentDurationNanos());
        assertEquals(1000_000_000L, in.handler.getCheckpointStartDelayNanos());

        in = new Input(2);
        in.atMs(100);
        in.barrier(0, 1, 0);
        in.atMs(900);
        in.barrier(1, 2, 0);
        in.atMs(1000);
        in.barrier(0, 2, 0);
        assertEquals(100_000_000L, in.handler.getAlignmentDurationNanos());
        assertEquals(900_000_000L, in.handler.getCheckpointStartDelayNanos());
        in.atMs(2100);
        in.barrier(0, 3, 2000);
        in.atMs(2400);
        in.end(0);
        in.atMs(3000);
        in.end(1);
        assertEquals(2, in.task.aligned);
        assertEquals(1, in.task.aborted);
        assertEquals(600_000_000L, in.handler.getAlignmentDurationNanos());
        assertEquals(400_000_000L, in.handler.getCheckpointStartDelayNanos());
    }
}
