package wmrun.flink;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Counter;

/**
 * One source subtask's replay: the records of its splits released by due
 * time, then in file order, as wmrun's replay does (runtime/source/replay.h).
 * A partition is a log: a record due before the one above it in its
 * partition is due with it, so the trace's disorder stays.
 *
 * Every split gets its own output (and so its own watermark generator, as
 * `fromSource` with a strategy does per split) at the first poll after it
 * is assigned, before its first record: a partition that has not sent
 * anything yet holds the subtask's watermark back, as in wmrun, where a
 * source subtask knows its partitions from the start. Splits end together,
 * with the subtask's last record, or at the replay's end if that comes
 * later (wmrun's replay_end: a recorded job's partitions end when its run
 * length ended them, so the last windows fire then, not earlier). A
 * subtask without splits ends at once, as a bounded generator's does in
 * wmrun.
 *
 * pollNext never sleeps: when nothing is due it returns NOTHING_AVAILABLE
 * and a timer completes the availability future at the next due time, so
 * the task thread stays free for the periodic watermark and idleness timers.
 *
 * Watermark alignment pauses single splits (pauseOrResumeSplits), as
 * wmrun's replay pauses a partition: a paused split's records wait, the
 * others go on, and a resumed split's records that fell due meanwhile are
 * released first (they were due earlier), in file order. A subtask whose
 * records left are all paused waits for a resume, not for its end.
 */
public final class ReplayReader implements SourceReader<TraceRecord, ReplaySplit> {
    private final double speed;
    private final long endMillis; /* -1: none */
    /* The operator's numRecordsIn: records read, as SourceReaderBase counts them. */
    private final Counter recordsIn;
    private final Map<String, SplitState> splits = new LinkedHashMap<>();
    private boolean noMoreSplits;
    private CompletableFuture<Void> available = new CompletableFuture<>();
    private ScheduledExecutorService timer;
    /*
     * The most a record went out after it was due, and the trace it came
     * from: a reader that is not scheduled, or held back by its job, falls
     * behind its schedule, and every fire_time after that is late by as
     * much. close() says so, so that nobody reads that as the job's timing.
     */
    private long behindNanos;
    private String path;

    ReplayReader(double speed, long endMillis, Counter recordsIn) {
        this.speed = speed;
        this.endMillis = endMillis;
        this.recordsIn = recordsIn;
    }

    /** A split being replayed: its records, the next one, and when it is due. */
    private static final class SplitState {
        final ReplaySplit split;
        final List<TraceRecord> records;
        final List<Long> lines; /* file line of each record: the tie-break */
        int next;
        long dueNanos; /* of records[next]: never before the previous one's */
        boolean paused; /* by watermark alignment */
        SourceOutput<TraceRecord> output;

        SplitState(ReplaySplit split, List<TraceRecord> records, List<Long> lines) {
            this.split = split;
            this.records = records;
            this.lines = lines;
            this.next = (int) split.position;
        }
    }

    @Override
    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "wmrun-replay-pacing");
            t.setDaemon(true);
            return t;
        });
    }

    private long dueOf(SplitState s, long previous) {
        long arrival = s.records.get(s.next).arrival;
        long due = s.split.startMillis * 1_000_000L + (long) (arrival * 1e6 / speed);
        return Math.max(due, previous);
    }

    @Override
    public InputStatus pollNext(ReaderOutput<TraceRecord> output) {
        SplitState first = null;
        boolean held = false; /* a paused split has records left */
        for (SplitState s : splits.values()) {
            if (s.output == null) {
                s.output = output.createOutputForSplit(s.split.splitId());
            }
            if (s.next < s.records.size() && s.paused) {
                held = true;
            } else if (s.next < s.records.size() && (first == null || s.dueNanos < first.dueNanos
                    || (s.dueNanos == first.dueNanos && s.lines.get(s.next) < first.lines.get(first.next)))) {
                first = s;
            }
        }
        long now = System.currentTimeMillis() * 1_000_000L;
        if (first == null && held) {
            return waitFor(-1); /* until pauseOrResumeSplits resumes one */
        }
        if (first == null) {
            long end = endNanos();
            if (noMoreSplits && end > now) {
                return waitFor(end - now);
            }
            return noMoreSplits ? InputStatus.END_OF_INPUT : waitFor(-1);
        }
        if (first.dueNanos > now) {
            return waitFor(first.dueNanos - now);
        }
        behindNanos = Math.max(behindNanos, now - first.dueNanos);
        TraceRecord r = first.records.get(first.next++);
        if (first.next < first.records.size()) {
            first.dueNanos = dueOf(first, first.dueNanos);
        }
        r.origin = first.split.startMillis;
        recordsIn.inc();
        first.output.collect(r, r.timestamp);
        return InputStatus.MORE_AVAILABLE;
    }

    /** When the splits end if no record is left (Long.MIN_VALUE: at once). */
    private long endNanos() {
        if (endMillis < 0 || splits.isEmpty()) {
            return Long.MIN_VALUE;
        }
        long start = splits.values().iterator().next().split.startMillis;
        return start * 1_000_000L + (long) (endMillis * 1e6 / speed);
    }

    /**
     * NOTHING_AVAILABLE, with the future completed after delayNanos (< 0: by
     * addSplits or a resume).
     */
    private InputStatus waitFor(long delayNanos) {
        if (available.isDone()) {
            available = new CompletableFuture<>();
        }
        if (delayNanos >= 0) {
            CompletableFuture<Void> f = available;
            timer.schedule(() -> f.complete(null), delayNanos, TimeUnit.NANOSECONDS);
        }
        return InputStatus.NOTHING_AVAILABLE;
    }

    @Override
    public List<ReplaySplit> snapshotState(long checkpointId) {
        List<ReplaySplit> out = new ArrayList<>();
        for (SplitState s : splits.values()) {
            out.add(new ReplaySplit(s.split.path, s.split.topic, s.split.partition, s.next,
                    s.split.startMillis));
        }
        return out;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void addSplits(List<ReplaySplit> added) {
        for (ReplaySplit split : added) {
            List<TraceRecord> records = new ArrayList<>();
            List<Long> lines = new ArrayList<>();
            read(split, records, lines);
            SplitState s = new SplitState(split, records, lines);
            path = split.path; /* one trace a source: every split's is the same */
            if (s.next < records.size()) {
                s.dueNanos = dueOf(s, Long.MIN_VALUE);
            }
            splits.put(split.splitId(), s);
        }
        available.complete(null);
    }

    /** The records of the split's partition, in file order, and their lines. */
    private static void read(ReplaySplit split, List<TraceRecord> records, List<Long> lines) {
        try (BufferedReader in = Files.newBufferedReader(Paths.get(split.path), StandardCharsets.UTF_8)) {
            String line;
            long n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                if (n == 1 && line.startsWith("partition,")) {
                    continue; /* the header */
                }
                TraceRecord r = TraceRecord.parse(line, split.path + ":" + n);
                if (r.partition == split.partition) {
                    records.add(r);
                    lines.add(n);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not read trace \"" + split.path + "\"", e);
        }
    }

    @Override
    public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
        for (String id : toPause) {
            SplitState s = splits.get(id);
            if (s != null) {
                s.paused = true;
            }
        }
        for (String id : toResume) {
            SplitState s = splits.get(id);
            if (s != null) {
                s.paused = false;
            }
        }
        available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        available.complete(null);
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
        long behindMillis = behindNanos / 1_000_000L;
        if (behindMillis > 0 && path != null) {
            System.err.println("wmrun: replay of " + printable(path) + ": records went out up to " + behindMillis
                    + " ms of wall clock after they were due");
        }
    }

    /** s with each control character and backslash as a Java unicode escape: one line. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c < 0x20 || c == 0x7f || c == '\\') {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
