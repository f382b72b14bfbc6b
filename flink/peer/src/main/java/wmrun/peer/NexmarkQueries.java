package wmrun.peer;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

/**
 * The Nexmark benchmark's queries as the benchmark defines them for Flink
 * (github nexmark/nexmark, module nexmark-flink, queries/*.sql at 6b3646c),
 * run through Flink's SQL over a recording of events, so that wmrun's
 * results on the same events can be compared with Flink's row for row, and
 * its throughput with Flink's.
 *
 * <p>Usage: {@code NexmarkQueries --recording FILE|DIR --out DIR --parallelism
 * P[,P...] QUERY...}, QUERY among q0 q1 q2 q3 q5 q7 q8 q11 q12. The JVM
 * starts one MiniCluster and submits each query to it in turn, through its
 * REST endpoint on the loopback interface, as a job of its own, at each
 * parallelism in turn.
 * With one parallelism a query's rows go to DIR/QUERY.csv, with several to
 * DIR/pP/QUERY.csv. Each job says on standard error its rows and its wall
 * time, from submitting it to its last row.
 *
 * <p>The recording, the contract with wmrun's side: one file of JSON lines
 * in the benchmark's own Kafka layout (ddl_kafka.sql), a line an event,
 *
 * <pre>
 * {"event_type":2,"person":null,"auction":null,"bid":{"auction":1007,"bidder":1001,"price":100,"channel":null,"url":null,"dateTime":"2015-07-15 00:00:00.012","extra":"..."},"partition":0}
 * </pre>
 *
 * event_type 0 with person {id, name, emailAddress, creditCard, city,
 * state, dateTime, extra}, 1 with auction {id, itemName, description,
 * initialBid, reserve, dateTime, expires, seller, category, extra}, 2 with
 * bid {auction, bidder, price, channel, url, dateTime, extra}, the other
 * two members null. Timestamps are UTC in "yyyy-MM-dd HH:mm:ss.SSS" (the
 * json format's SQL standard). channel and url are null: wmrun's bid is
 * Beam's, which has neither. "partition", the source partition of wmrun's
 * generator, is not a column: the json format skips members it was not
 * asked for. The lines are in ascending event time, one timeline, so that
 * the benchmark's watermark (4 s behind the largest time read) never passes
 * a record and no result hangs on how the file is split among readers
 * (Flink's file source makes a local file one split: one reader parses it
 * at any parallelism, the operators after it run at P).
 *
 * <p>The recording may also be a directory of such files, each ascending
 * on its own: the file source makes each file a split and deals the
 * splits to its readers, so P files give P readers a file each to parse,
 * as P Kafka partitions would (wmbench nexmark's fair side). Each reader's
 * watermark follows its own file and the operators after take the least,
 * so no record of an ascending file is ever behind it and the results are
 * the single file's. That needs one file a reader: the enumerator hands a
 * split to each reader as it asks, and every reader asks at its start; a
 * reader that finished a file before another asked would take a second,
 * whose records its watermark may have passed (wmbench compares the rows
 * before it prints a figure).
 *
 * <p>The table is the benchmark's (its columns, the computed dateTime and
 * the watermark) with the filesystem connector and the json format in place
 * of Kafka; the views person, auction and bid are ddl_views.sql's; each
 * query is its qN.sql's SELECT, verbatim, collected instead of inserted into
 * a blackhole sink. The bounded file ends with the maximum watermark, so
 * every event-time window fires.
 *
 * <p>q12's windows are on processing time, and Flink drops the timers
 * still pending when a task's input ends (as wmrun does): on the bounded
 * file its last windows, all of them when the job takes under 10 s, would
 * never fire. So q12 reads the file with the file source watching it for
 * more ('source.monitor-interval'), which never ends, and its job is
 * cancelled once its windows have counted every bid of the recording (a
 * batch job's count(*) over the bid view, run once). Its wall time
 * includes the wait for the last window to close, up to 10 s.
 *
 * <p>Output: a header of the SELECT's column names, then a line a row:
 * BIGINT as digits, DECIMAL as Flink prints it (q1's price: 90.800),
 * timestamps as epoch milliseconds (the session's time zone is UTC),
 * strings quoted only when they hold a comma, a double quote, CR or LF
 * (RFC 4180), null as an empty field. The rows are sorted by their UTF-8
 * bytes (LC_ALL=C sort's order), so that two runs compare with diff. These
 * queries emit only insertions; should one emit updates or retractions,
 * the file holds the final table and standard error says how many there
 * were.
 *
 * <p>Exit status: 0 when every query ran, 64 bad arguments, 66 a recording
 * that cannot be read, 74 an output that cannot be written; a failing job
 * ends the JVM with Flink's exception.
 */
public final class NexmarkQueries {
    static final int EX_USAGE = 64;
    static final int EX_NOINPUT = 66;
    static final int EX_IOERR = 74;

    /**
     * ddl_kafka.sql's table (itself ddl_gen.sql's columns) over the
     * recording: connector, path and format are this runner's, the rest is
     * the benchmark's. The first %s is the recording's path as a SQL
     * string, the second more options or nothing.
     */
    static final String TABLE = """
            CREATE TABLE nexmark (
                event_type int,
                person ROW<
                    id  BIGINT,
                    name  VARCHAR,
                    emailAddress  VARCHAR,
                    creditCard  VARCHAR,
                    city  VARCHAR,
                    state  VARCHAR,
                    `dateTime` TIMESTAMP(3),
                    extra  VARCHAR>,
                auction ROW<
                    id  BIGINT,
                    itemName  VARCHAR,
                    description  VARCHAR,
                    initialBid  BIGINT,
                    reserve  BIGINT,
                    `dateTime`  TIMESTAMP(3),
                    expires  TIMESTAMP(3),
                    seller  BIGINT,
                    category  BIGINT,
                    extra  VARCHAR>,
                bid ROW<
                    auction  BIGINT,
                    bidder  BIGINT,
                    price  BIGINT,
                    channel  VARCHAR,
                    url  VARCHAR,
                    `dateTime`  TIMESTAMP(3),
                    extra  VARCHAR>,
                `dateTime` AS
                    CASE
                        WHEN event_type = 0 THEN person.`dateTime`
                        WHEN event_type = 1 THEN auction.`dateTime`
                        ELSE bid.`dateTime`
                    END,
                WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
            ) WITH (
                'connector' = 'filesystem',
                'path' = %s,
                'format' = 'json'%s
            )""";

    /** ddl_views.sql, ${NEXMARK_TABLE} being the table above. */
    static final String[] VIEWS = {
        """
        CREATE VIEW person AS
        SELECT
            person.id,
            person.name,
            person.emailAddress,
            person.creditCard,
            person.city,
            person.state,
            `dateTime`,
            person.extra
        FROM nexmark WHERE event_type = 0""",
        """
        CREATE VIEW auction AS
        SELECT
            auction.id,
            auction.itemName,
            auction.description,
            auction.initialBid,
            auction.reserve,
            `dateTime`,
            auction.expires,
            auction.seller,
            auction.category,
            auction.extra
        FROM nexmark WHERE event_type = 1""",
        """
        CREATE VIEW bid AS
        SELECT
            bid.auction,
            bid.bidder,
            bid.price,
            bid.channel,
            bid.url,
            `dateTime`,
            bid.extra
        FROM nexmark WHERE event_type = 2""",
    };

    /**
     * Each query's SELECT, from the INSERT INTO nexmark_qN of the benchmark's
     * qN.sql. q12's view B comes first, as in its file.
     */
    static final Map<String, String[]> QUERIES = new LinkedHashMap<>();

    static {
        // q0.sql
        QUERIES.put("q0", new String[] {"""
                SELECT auction, bidder, price, `dateTime`, extra FROM bid"""});
        // q1.sql
        QUERIES.put("q1", new String[] {"""
                SELECT
                    auction,
                    bidder,
                    0.908 * price as price, -- convert dollar to euro
                    `dateTime`,
                    extra
                FROM bid"""});
        // q2.sql
        QUERIES.put("q2", new String[] {"""
                SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0"""});
        // q3.sql
        QUERIES.put("q3", new String[] {"""
                SELECT
                    P.name, P.city, P.state, A.id
                FROM
                    auction AS A INNER JOIN person AS P on A.seller = P.id
                WHERE
                    A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')"""});
        // q5.sql
        QUERIES.put("q5", new String[] {"""
                SELECT AuctionBids.auction, AuctionBids.num
                 FROM (
                   SELECT
                     auction,
                     count(*) AS num,
                     window_start AS starttime,
                     window_end AS endtime
                     FROM TABLE(
                             HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
                     GROUP BY auction, window_start, window_end
                 ) AS AuctionBids
                 JOIN (
                   SELECT
                     max(CountBids.num) AS maxn,
                     CountBids.starttime,
                     CountBids.endtime
                   FROM (
                     SELECT
                       count(*) AS num,
                       window_start AS starttime,
                       window_end AS endtime
                     FROM TABLE(
                                HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
                     GROUP BY auction, window_start, window_end
                     ) AS CountBids
                   GROUP BY CountBids.starttime, CountBids.endtime
                 ) AS MaxBids
                 ON AuctionBids.starttime = MaxBids.starttime AND
                    AuctionBids.endtime = MaxBids.endtime AND
                    AuctionBids.num >= MaxBids.maxn"""});
        // q7.sql: price before bidder, as the benchmark selects them (its
        // sink's columns are auction, bidder, price: it inserts by position)
        QUERIES.put("q7", new String[] {"""
                SELECT B.auction, B.price, B.bidder, B.`dateTime`, B.extra
                from bid B
                JOIN (
                  SELECT MAX(price) AS maxprice, window_end as `dateTime`
                  FROM TABLE(
                          TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
                  GROUP BY window_start, window_end
                ) B1
                ON B.price = B1.maxprice
                WHERE B.`dateTime` BETWEEN B1.`dateTime`  - INTERVAL '10' SECOND AND B1.`dateTime`"""});
        // q8.sql
        QUERIES.put("q8", new String[] {"""
                SELECT P.id, P.name, P.starttime
                FROM (
                  SELECT id, name,
                        window_start AS starttime,
                        window_end AS endtime
                  FROM TABLE(
                            TUMBLE(TABLE person, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
                  GROUP BY id, name, window_start, window_end
                ) P
                JOIN (
                  SELECT seller,
                        window_start AS starttime,
                        window_end AS endtime
                  FROM TABLE(
                        TUMBLE(TABLE auction, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
                  GROUP BY seller, window_start, window_end
                ) A
                ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime"""});
        // q11.sql: the legacy group window, as the benchmark still has it
        QUERIES.put("q11", new String[] {"""
                SELECT
                    B.bidder,
                    count(*) as bid_count,
                    SESSION_START(B.`dateTime`, INTERVAL '10' SECOND) as starttime,
                    SESSION_END(B.`dateTime`, INTERVAL '10' SECOND) as endtime
                FROM bid B
                GROUP BY B.bidder, SESSION(B.`dateTime`, INTERVAL '10' SECOND)"""});
        // q12.sql
        QUERIES.put("q12", new String[] {"""
                CREATE VIEW B AS SELECT *, PROCTIME() as p_time FROM bid""", """
                SELECT
                    bidder,
                    count(*) as bid_count,
                    window_start AS starttime,
                    window_end AS endtime
                FROM TABLE(
                        TUMBLE(TABLE B, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
                GROUP BY bidder, window_start, window_end"""});
    }

    public static void main(String[] args) throws Exception {
        String recording = null;
        String out = null;
        String parallelisms = null;
        List<String> queries = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            boolean valued = a.equals("--recording") || a.equals("--out") || a.equals("--parallelism");
            if (valued && i + 1 == args.length) {
                fail(EX_USAGE, a + " needs a value");
            }
            if (a.equals("--recording")) {
                recording = args[++i];
            } else if (a.equals("--out")) {
                out = args[++i];
            } else if (a.equals("--parallelism")) {
                parallelisms = args[++i];
            } else if (QUERIES.containsKey(a)) {
                queries.add(a);
            } else {
                fail(EX_USAGE, "unknown argument \"" + a + "\" (queries: "
                        + String.join(" ", QUERIES.keySet()) + ")");
            }
        }
        if (recording == null || out == null || queries.isEmpty()) {
            fail(EX_USAGE, "usage: NexmarkQueries --recording FILE|DIR --out DIR"
                    + " [--parallelism P[,P...]] QUERY...");
        }
        int[] ps = parallelismList(parallelisms == null ? "1" : parallelisms);
        Path file = Path.of(recording).toAbsolutePath();
        if (!Files.isReadable(file) || !(Files.isRegularFile(file) || Files.isDirectory(file))) {
            fail(EX_NOINPUT, "cannot read the recording \"" + recording + "\"");
        }
        try (MiniCluster cluster = cluster(Arrays.stream(ps).max().getAsInt())) {
            int port = cluster.getRestAddress().get().getPort();
            long bids = -1;
            for (int p : ps) {
                Path dir = ps.length == 1 ? Path.of(out) : Path.of(out, "p" + p);
                try {
                    Files.createDirectories(dir);
                } catch (IOException e) {
                    fail(EX_IOERR, "could not create \"" + dir + "\": " + e.getMessage());
                }
                StreamTableEnvironment bounded = environment(port, p, file, Mode.BOUNDED);
                for (String q : queries) {
                    if (!q.equals("q12")) {
                        run(bounded, q, p, dir.resolve(q + ".csv"), -1);
                        continue;
                    }
                    if (bids < 0) {
                        bids = countBids(port, file);
                    }
                    run(environment(port, p, file, Mode.WATCHED), q, p, dir.resolve(q + ".csv"), bids);
                }
            }
        }
    }

    /** "1,2" as {1, 2}; each from 1 to 64. */
    static int[] parallelismList(String text) {
        String[] words = text.split(",", -1);
        int[] ps = new int[words.length];
        for (int i = 0; i < words.length; i++) {
            try {
                ps[i] = Integer.parseInt(words[i]);
            } catch (NumberFormatException e) {
                ps[i] = 0;
            }
            if (ps[i] < 1 || ps[i] > 64) {
                fail(EX_USAGE, "invalid parallelism \"" + words[i] + "\"");
            }
        }
        return ps;
    }

    /**
     * One MiniCluster for every job of the run, SLOTS slots in one
     * TaskManager, its REST endpoint on a free port of the loopback
     * interface. The benchmark submits its queries to a standing cluster
     * too; a MiniCluster a job (what execute() starts outside a cluster)
     * took a second or two more a query on this 2-core machine, all of it in
     * the query's time.
     */
    static MiniCluster cluster(int slots) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("rest.address", "127.0.0.1");
        conf.setString("rest.bind-address", "127.0.0.1");
        conf.setString("rest.bind-port", "0");
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots)
                .build());
        cluster.start();
        return cluster;
    }

    /** How the recording's table reads the file. */
    enum Mode {
        /** once, then the maximum watermark: the benchmark's bounded run */
        BOUNDED,
        /** the file source watching for more, so the job never ends */
        WATCHED,
        /** once, as a batch job */
        BATCH
    }

    /**
     * An environment of parallelism P on the MiniCluster at PORT with the
     * recording's table and the benchmark's views. UTC as the session's
     * time zone: window bounds of processing time (q12) and the printed
     * timestamps do not hang on the machine's zone.
     */
    static StreamTableEnvironment environment(int port, int parallelism, Path recording, Mode mode) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment("127.0.0.1", port);
        env.setParallelism(parallelism);
        if (mode == Mode.BATCH) {
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        }
        StreamTableEnvironment tables = StreamTableEnvironment.create(env,
                mode == Mode.BATCH ? EnvironmentSettings.inBatchMode() : EnvironmentSettings.inStreamingMode());
        tables.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        String path = "'" + recording.toString().replace("'", "''") + "'";
        String watch = mode == Mode.WATCHED ? ",\n    'source.monitor-interval' = '1 s'" : "";
        tables.executeSql(String.format(TABLE, path, watch));
        for (String view : VIEWS) {
            tables.executeSql(view);
        }
        return tables;
    }

    /** The recording's bids, as the bid view reads them. */
    static long countBids(int port, Path recording) throws Exception {
        StreamTableEnvironment tables = environment(port, 1, recording, Mode.BATCH);
        try (CloseableIterator<Row> rows = tables.executeSql("SELECT count(*) FROM bid").collect()) {
            return (Long) rows.next().getField(0);
        }
    }

    /**
     * Query Q's statements on TABLES, its rows into OUT. A view that the
     * query creates (q12's B) stays in TABLES' catalog: each run has an
     * environment of its own. With STOP_AT at 0 or more, the query's
     * bid_count column is summed and the job cancelled once the sum reaches
     * STOP_AT (see WATCHED in the class comment).
     */
    static void run(StreamTableEnvironment tables, String q, int parallelism, Path out, long stopAt)
            throws Exception {
        String[] statements = QUERIES.get(q);
        for (int i = 0; i < statements.length - 1; i++) {
            tables.executeSql(statements[i]);
        }
        long start = System.nanoTime();
        TableResult result = tables.executeSql(statements[statements.length - 1]);
        List<String> columns = result.getResolvedSchema().getColumnNames();
        int counted = columns.indexOf("bid_count");
        // The final table as a multiset of lines: an insertion adds a
        // line, a retraction takes one away.
        Map<String, Integer> table = new HashMap<>();
        long changes = 0;
        long sum = 0;
        try (CloseableIterator<Row> rows = result.collect()) {
            while (!(stopAt >= 0 && sum >= stopAt) && rows.hasNext()) {
                Row row = rows.next();
                String line = line(row);
                RowKind kind = row.getKind();
                long sign = kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER ? 1 : -1;
                if (kind != RowKind.INSERT) {
                    changes++;
                }
                table.merge(line, (int) sign, Integer::sum);
                if (stopAt >= 0) {
                    sum += sign * (Long) row.getField(counted);
                }
            }
        }
        long wallMs = (System.nanoTime() - start) / 1_000_000;
        List<byte[]> lines = new ArrayList<>();
        for (Map.Entry<String, Integer> e : table.entrySet()) {
            if (e.getValue() < 0) {
                throw new IllegalStateException(q + ": a retraction of a row never inserted: " + e.getKey());
            }
            byte[] bytes = e.getKey().getBytes(StandardCharsets.UTF_8);
            for (int n = 0; n < e.getValue(); n++) {
                lines.add(bytes);
            }
        }
        lines.sort(Arrays::compareUnsigned);
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            StringBuilder header = new StringBuilder();
            for (String c : columns) {
                if (header.length() > 0) {
                    header.append(',');
                }
                header.append(field(c));
            }
            w.write(header.append('\n').toString());
            for (byte[] l : lines) {
                w.write(new String(l, StandardCharsets.UTF_8));
                w.write('\n');
            }
        } catch (IOException e) {
            fail(EX_IOERR, "could not write \"" + out + "\": " + e.getMessage());
        }
        System.err.println("nexmark " + q + " p" + parallelism + ": rows=" + lines.size() + " wall_ms=" + wallMs
                + (changes > 0 ? " updates_or_retractions=" + changes : ""));
    }

    /** A row as a CSV line, whatever its kind. */
    static String line(Row row) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < row.getArity(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(value(row.getField(i)));
        }
        return b.toString();
    }

    /** One field's text: see the class comment. */
    static String value(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof LocalDateTime t) {
            return Long.toString(t.toInstant(ZoneOffset.UTC).toEpochMilli());
        }
        if (v instanceof Instant t) {
            return Long.toString(t.toEpochMilli());
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        return field(v.toString());
    }

    /** TEXT as a CSV field: quoted, its quotes doubled, only if it must be. */
    static String field(String text) {
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\r') < 0 && text.indexOf('\n') < 0) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }

    static void fail(int status, String message) {
        System.err.println("nexmark: " + message);
        System.exit(status);
    }
}
