package wmrun.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The support classes' pure parts: lines as wmrun writes them, traces as wmrun exports them. */
class ResultLinesTest {
    @Test
    void resultLineHasWmrunsColumnsThenTheSubtask() {
        boolean[] columns = {true, true, false, true, false};
        assertEquals("key,window_start,window_end,count,sum,max,fire_time,watermark,late_firing,subtask",
                ResultLines.header(columns));
        long[] acc = {3, 18, 2, 9};
        assertEquals("2,0,10000,3,18,9,15400,11002,false,1",
                ResultLines.line(2, 0, 10000, acc, columns, 15400, 11002, false, 1));
        assertEquals("key,window_start,window_end,count,sum,max,fire_time,watermark,late_firing",
                ResultLines.header(columns, false));
        assertEquals("2,0,10000,3,18,9,15400,11002,false",
                new ResultLines.WithoutSubtask().map("2,0,10000,3,18,9,15400,11002,false,13"));
    }

    @Test
    void aggregatesWrapLikeJavaLongAndMerge() {
        Aggregates a = new Aggregates();
        long[] x = a.add(new TraceRecord(0, 1, 1, Long.MAX_VALUE, 0), a.createAccumulator());
        x = a.add(new TraceRecord(0, 2, 1, 1, 0), x);
        assertEquals(Long.MIN_VALUE, x[1]);
        long[] m = a.merge(x, a.add(new TraceRecord(1, 3, 1, -5, 0), a.createAccumulator()));
        assertEquals(3, m[0]);
        assertEquals(-5, m[2]);
        assertEquals(Long.MAX_VALUE, m[3]);
        assertEquals(0, m[4]); /* no record carried an origin */
    }

    @Test
    void aggregatesKeepTheOriginTheRecordsCarried() {
        Aggregates a = new Aggregates();
        TraceRecord r = new TraceRecord(0, 1, 1, 7, 0);
        r.origin = 1_700_000_000_000L;
        long[] x = a.add(r, a.createAccumulator());
        assertEquals(r.origin, x[4]);
        assertEquals(r.origin, a.merge(a.createAccumulator(), x)[4]);
        assertEquals(r.origin, a.merge(x, a.createAccumulator())[4]);
    }

    @Test
    void jobOriginIsFixedByTheLastSourceAndKept() throws Exception {
        JobOrigin origin = new JobOrigin(2);
        java.util.concurrent.CompletableFuture<Long> first = origin.arrive();
        assertEquals(false, first.isDone());
        long before = System.currentTimeMillis();
        java.util.concurrent.CompletableFuture<Long> second = origin.arrive();
        assertEquals(true, first.isDone());
        assertEquals(first.get(), second.get());
        assertEquals(true, first.get() >= before);
        /* An enumerator made again after a failure: the same origin. */
        assertEquals(first.get(), origin.arrive().get());
        /* Another job's origin is its own. */
        assertEquals(false, new JobOrigin(2).arrive().isDone());
        assertThrows(IllegalArgumentException.class, () -> new JobOrigin(0));
    }

    @Test
    void traceLinesAreFiveNumbers() {
        TraceRecord r = TraceRecord.parse("1,-959,1,8,911", "t.csv:2");
        assertEquals("1,-959,1,8", r.toLateLine());
        assertEquals(911, r.arrival);
        assertThrows(IllegalArgumentException.class, () -> TraceRecord.parse("1,2,3,4", "t.csv:3"));
        assertThrows(IllegalArgumentException.class, () -> TraceRecord.parse("1,x,3,4,5", "t.csv:4"));
    }

    @Test
    void partitionsGoToSubtasksAsInWmrun() {
        /* check_source_gen.c's cases of wm_source_gen_split_owner(). */
        assertEquals(3007 % 4, ReplaySource.owner("a", 0, 4));
        assertEquals(0, ReplaySource.owner("a", 1, 4));
        assertEquals(3, ReplaySource.owner("orders", 0, 4));
        assertEquals(0, ReplaySource.owner("orders", 5, 4));
        assertEquals(2, ReplaySource.owner("orders", 6, 7));
        assertEquals(5, ReplaySource.owner("clicks", 0, 8));
    }
}
