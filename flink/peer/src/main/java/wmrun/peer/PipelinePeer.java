package wmrun.peer;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The throughput peer of {@code wmbench pipeline --peer flink}: the
 * benchmark's job, a keyed one-minute tumbling count, written as a Flink user
 * would write it and run on a local MiniCluster (what
 * StreamExecutionEnvironment.execute() starts outside a cluster) with its
 * default settings, or with object reuse.
 *
 * <p>Usage: {@code PipelinePeer TRACE RECORDS RESULTS WINDOW_MS}. TRACE is
 * the trace that wmbench writes and wmrun replays, keyed by longs
 * ({@code partition,timestamp,key,value} lines); the peer reads it into
 * memory once, as wmrun reads it before a job, and must find RECORDS
 * records in it. Then each line on standard input, {@code P default} or
 * {@code P reuse}, runs the job once at parallelism P and answers with one
 * line:
 *
 * <pre>
 * bench=pipeline impl=flink variant=pP[-reuse] metric=run records=N results=W first_to_last_ns=T execute_ns=E
 * </pre>
 *
 * <p>The job: a data-generator source whose record n is the trace's line n
 * (so Flink's source readers divide the records by position, each taking
 * consecutive lines, where wmrun's subtasks divide them by partition: the
 * records, keys and windows are the same, and each reader's timestamps rise
 * as a partition's do); watermarks of bounded out-of-orderness 0 on the
 * timestamps, as wmrun's; keyBy on the long key; a tumbling event-time
 * window of WINDOW_MS counting per key; a sink that tallies the results.
 *
 * <p>Every run is checked: its windows must count RECORDS records in all and
 * number RESULTS (the distinct key and window pairs of the trace, which
 * wmbench counts as it writes it); a wrong run exits 70, so a fast wrong
 * run cannot pass for a figure.
 *
 * <p>Times. first_to_last_ns runs from the first record a source reader
 * emits to the last result a sink receives: the job's work once it is
 * deployed, as wmrun's replay is timed from its start line (every subtask
 * set up) to its last worker's end. execute_ns is execute() itself, what a
 * user waits for: it adds starting the MiniCluster, submitting and deploying
 * the job and tearing it down.
 *
 * <p>Exit status: 0 at the end of standard input, 64 bad arguments or
 * request, 65 a trace that is not wmbench's, 70 a wrong result, 74 a trace
 * that cannot be read.
 */
public final class PipelinePeer {
    static final int EX_USAGE = 64;
    static final int EX_DATAERR = 65;
    static final int EX_SOFTWARE = 70;
    static final int EX_IOERR = 74;

    /**
     * The trace's records, by line. Static: the MiniCluster runs in this
     * JVM, and its source readers read them here rather than from a copy
     * serialized into every job.
     */
    static int[] partitions;
    static long[] timestamps;
    static long[] keys;
    static long[] values;

    /** A record as the job carries it: a Flink POJO (no Kryo). */
    public static final class Event {
        public int partition;
        public long timestamp;
        public long key;
        public long value;

        public Event() {}

        Event(int partition, long timestamp, long key, long value) {
            this.partition = partition;
            this.timestamp = timestamp;
            this.key = key;
            this.value = value;
        }
    }

    /** A window's count, with its key and window, as the sink gets it. */
    public static final class Result {
        public long key;
        public long start;
        public long end;
        public long count;

        public Result() {}

        Result(long key, long start, long end, long count) {
            this.key = key;
            this.start = start;
            this.end = end;
            this.count = count;
        }
    }

    /** What a run's readers and sinks saw, gathered across its subtasks. */
    static final class Tally {
        static final AtomicLong firstRecordNs = new AtomicLong();
        static final AtomicLong lastResultNs = new AtomicLong();
        static final LongAdder results = new LongAdder();
        static final LongAdder counted = new LongAdder();

        static void reset() {
            firstRecordNs.set(Long.MAX_VALUE);
            lastResultNs.set(Long.MIN_VALUE);
            results.reset();
            counted.reset();
        }
    }

    /** Record n of the source: line n of the trace. */
    static final class FromTrace implements GeneratorFunction<Long, Event> {
        private static final long serialVersionUID = 1L;
        private transient boolean started;

        @Override
        public Event map(Long n) {
            if (!started) {
                started = true;
                Tally.firstRecordNs.accumulateAndGet(System.nanoTime(), Math::min);
            }
            int i = (int) (long) n;
            return new Event(partitions[i], timestamps[i], keys[i], values[i]);
        }
    }

    static final class ByKey implements KeySelector<Event, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Event e) {
            return e.key;
        }
    }

    static final class Count implements AggregateFunction<Event, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Event e, Long count) {
            return count + 1;
        }

        @Override
        public Long getResult(Long count) {
            return count;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    static final class WithWindow extends ProcessWindowFunction<Long, Result, Long, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(Long key, Context context, Iterable<Long> counts, Collector<Result> out) {
            TimeWindow w = context.window();
            out.collect(new Result(key, w.getStart(), w.getEnd(), counts.iterator().next()));
        }
    }

    /** Counts the results and their records; the last one's time. */
    static final class TallySink implements Sink<Result> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<Result> createWriter(WriterInitContext context) {
            return new Writer();
        }

        static final class Writer implements SinkWriter<Result> {
            private long results;
            private long counted;
            private long lastNs = Long.MIN_VALUE;

            @Override
            public void write(Result r, Context context) {
                results++;
                counted += r.count;
                lastNs = System.nanoTime();
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {
                Tally.results.add(results);
                Tally.counted.add(counted);
                Tally.lastResultNs.accumulateAndGet(lastNs, Math::max);
            }
        }
    }

    /** One run of the job; its figures, or an exit after a message. */
    static String run(int parallelism, boolean reuse, long records, long results, long windowMs)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism);
        if (reuse) {
            env.getConfig().enableObjectReuse();
        }
        DataGeneratorSource<Event> source =
                new DataGeneratorSource<>(new FromTrace(), records, TypeInformation.of(Event.class));
        env.fromSource(source,
                        WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ZERO)
                                .withTimestampAssigner((e, previous) -> e.timestamp),
                        "trace")
                .keyBy(new ByKey())
                .window(TumblingEventTimeWindows.of(Duration.ofMillis(windowMs)))
                .aggregate(new Count(), new WithWindow())
                .sinkTo(new TallySink());

        String variant = "p" + parallelism + (reuse ? "-reuse" : "");
        Tally.reset();
        long start = System.nanoTime();
        env.execute("wmbench pipeline " + variant);
        long end = System.nanoTime();
        long gotResults = Tally.results.sum();
        long gotRecords = Tally.counted.sum();
        if (gotRecords != records || gotResults != results) {
            fail(EX_SOFTWARE, "flink " + variant + ": the windows counted " + gotRecords
                    + " records in " + gotResults + " results, expected " + records
                    + " records in " + results);
        }
        long first = Tally.firstRecordNs.get();
        long last = Tally.lastResultNs.get();
        return "bench=pipeline impl=flink variant=" + variant + " metric=run records=" + gotRecords
                + " results=" + gotResults + " first_to_last_ns=" + Math.max(1, last - first)
                + " execute_ns=" + (end - start);
    }

    static void fail(int status, String message) {
        System.err.println("wmrun-flink-peer: " + message);
        System.exit(status);
    }

    /** A decimal count, or an exit naming what it was for. */
    static long count(String text, String what) {
        try {
            long v = Long.parseLong(text);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // the message below says it
        }
        fail(EX_USAGE, "invalid " + what + " \"" + text + "\"");
        return 0;
    }

    /**
     * The trace's records into the arrays: exactly `records` lines of four
     * decimal fields, each ending in a line end, as wmbench writes them.
     */
    static void read(String path, int records) throws IOException {
        partitions = new int[records];
        timestamps = new long[records];
        keys = new long[records];
        values = new long[records];
        long[] field = new long[4];
        int line = 0;
        int f = 0;
        long v = 0;
        boolean digits = false;
        boolean negative = false;
        try (InputStream in = new BufferedInputStream(new FileInputStream(path), 1 << 16)) {
            for (int c = in.read();; c = in.read()) {
                if (c >= '0' && c <= '9') {
                    v = v * 10 + (c - '0');
                    digits = true;
                    continue;
                }
                if (c == '-' && !digits && !negative) {
                    negative = true;
                    continue;
                }
                if (c == -1 && f == 0 && !digits && !negative) {
                    break;
                }
                if (!digits || !((c == ',' && f < 3) || (c == '\n' && f == 3))) {
                    fail(EX_DATAERR, path + ":" + (line + 1) + ": not a line of four decimal numbers");
                }
                field[f++] = negative ? -v : v;
                v = 0;
                digits = false;
                negative = false;
                if (c == ',') {
                    continue;
                }
                if (line == records) {
                    fail(EX_DATAERR, path + ": more than " + records + " records");
                }
                partitions[line] = (int) field[0];
                timestamps[line] = field[1];
                keys[line] = field[2];
                values[line] = field[3];
                line++;
                f = 0;
            }
        }
        if (line != records) {
            fail(EX_DATAERR, path + ": " + line + " records, expected " + records);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            fail(EX_USAGE, "usage: PipelinePeer TRACE RECORDS RESULTS WINDOW_MS");
        }
        long records = count(args[1], "record count");
        long results = count(args[2], "result count");
        long windowMs = count(args[3], "window size");
        if (records > Integer.MAX_VALUE || windowMs == 0) {
            fail(EX_USAGE, "record count above 2^31 - 1 or window of 0 ms");
        }
        try {
            read(args[0], (int) records);
        } catch (IOException e) {
            fail(EX_IOERR, args[0] + ": " + e.getMessage());
        }
        System.out.println("ready records=" + records);
        System.out.flush();

        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String request; (request = requests.readLine()) != null;) {
            String[] words = request.split(" ");
            if (words.length != 2 || !(words[1].equals("default") || words[1].equals("reuse"))) {
                fail(EX_USAGE, "invalid request \"" + request + "\" (expected \"P default\" or \"P reuse\")");
            }
            long p = count(words[0], "parallelism");
            if (p < 1 || p > 64) {
                fail(EX_USAGE, "invalid parallelism " + p);
            }
            System.out.println(run((int) p, words[1].equals("reuse"), records, results, windowMs));
            System.out.flush();
        }
    }
}
