package wmrun.flink;

import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * One record of a replayed trace: the columns of wmrun's trace format
 * (partition, timestamp, key, value, arrival, and for a punctuated source
 * punctuate, heartbeat and watermark), arrival in milliseconds of
 * processing time since the job started; punctuate says that the record
 * carries a watermark at its timestamp, watermark (null: none) a
 * watermark of its own (PunctuatedWatermarks). A Flink POJO: public fields and a
 * public no-argument constructor, so Flink serializes it without Kryo.
 * A Kafka source with string keys (key_type = string), or a trace whose
 * keys are quoted, sets stringKey and is keyed by it (StringKey), where
 * every other source is keyed by key. origin is the wall-clock
 * millisecond of the job's processing time zero (JobOrigin), set by a
 * replay's reader as it emits the record, 0 where no replay paced it (a
 * Kafka source): what fire_time counts from downstream.
 */
public class TraceRecord {
    public int partition;
    public long timestamp;
    public long key;
    public String stringKey;
    public long value;
    public long arrival;
    public boolean punctuate;
    public boolean heartbeat;
    public Long watermark;
    public long origin;

    public TraceRecord() {}

    public TraceRecord(int partition, long timestamp, long key, long value, long arrival) {
        this.partition = partition;
        this.timestamp = timestamp;
        this.key = key;
        this.value = value;
        this.arrival = arrival;
    }

    /** The late side output's line, as wmrun writes it: partition,timestamp,key,value. */
    public String toLateLine() {
        return partition + "," + timestamp + "," + keyText(stringKey != null ? stringKey : key) + ","
                + value;
    }

    /**
     * A key as wmrun's CSV sink prints it: a long as it is, a string quoted
     * when it holds a comma or a quote, each quote doubled.
     */
    public static String keyText(Object key) {
        if (!(key instanceof String)) {
            return String.valueOf(key);
        }
        String s = (String) key;
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    /**
     * A line of an exported trace: five fields, decimal but the key, a
     * sixth, 0 or 1, for a punctuated source or one with heartbeats or
     * watermarks, a seventh, 0 or 1, for one with heartbeats or
     * watermarks, and an eighth, a decimal or empty, for one whose records
     * carry watermarks. The key is a long, or a string key quoted as RFC
     * 4180 quotes ("a,""b""" is a,"b"): a quoted key is a string key,
     * whatever its characters. wmrun wrote the file, after its own checks,
     * so anything else is a damaged file.
     */
    public static TraceRecord parse(String line, String where) {
        String stringKey = null;
        int keyAt = line.indexOf(',', line.indexOf(',') + 1) + 1;
        if (keyAt > 0 && keyAt < line.length() && line.charAt(keyAt) == '"') {
            StringBuilder b = new StringBuilder();
            int i = keyAt + 1;
            while (true) {
                if (i >= line.length()) {
                    throw new IllegalArgumentException(where + ": a key's quote is not closed");
                }
                char c = line.charAt(i++);
                if (c == '"' && i < line.length() && line.charAt(i) == '"') {
                    b.append('"');
                    i++;
                } else if (c == '"') {
                    break;
                } else {
                    b.append(c);
                }
            }
            stringKey = b.toString();
            /* The fields as if the key were 0: the rest stays as it is. */
            line = line.substring(0, keyAt) + "0" + line.substring(i);
        }
        String[] f = line.split(",", -1);
        if (f.length < 5 || f.length > 8) {
            throw new IllegalArgumentException(where + ": expected 5 to 8 fields, found " + f.length);
        }
        if (f.length >= 6 && !f[5].equals("0") && !f[5].equals("1")) {
            throw new IllegalArgumentException(where + ": invalid punctuate \"" + f[5] + "\"");
        }
        if (f.length >= 7 && !f[6].equals("0") && !f[6].equals("1")) {
            throw new IllegalArgumentException(where + ": invalid heartbeat \"" + f[6] + "\"");
        }
        try {
            TraceRecord r = new TraceRecord(Integer.parseInt(f[0]), Long.parseLong(f[1]),
                    Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]));
            r.punctuate = f.length >= 6 && f[5].equals("1");
            r.heartbeat = f.length >= 7 && f[6].equals("1");
            r.watermark = f.length == 8 && !f[7].isEmpty() ? Long.valueOf(f[7]) : null;
            r.stringKey = stringKey;
            return r;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": invalid number: " + e.getMessage());
        }
    }

    /** keyBy's key: the record's long key, hashed as Flink hashes a Long (wmrun's key groups do the same). */
    public static final class Key implements KeySelector<TraceRecord, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(TraceRecord r) {
            return r.key;
        }
    }

    /** keyBy's key of string-keyed records: hashed as Flink hashes a String, as wmrun's key groups do. */
    public static final class StringKey implements KeySelector<TraceRecord, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(TraceRecord r) {
            return r.stringKey;
        }
    }

    /**
     * The filter after a source: its heartbeats moved its watermarks (the
     * strategy saw them as records) and go no further, as wmrun's source
     * drops them.
     */
    public static final class NoHeartbeats implements FilterFunction<TraceRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean filter(TraceRecord r) {
            return !r.heartbeat;
        }
    }

    /** A [keyby] stage: records pass unchanged, at the stage's parallelism. */
    public static final class Forward implements MapFunction<TraceRecord, TraceRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public TraceRecord map(TraceRecord r) {
            return r;
        }
    }

    /** A late record as a line of the late side output. */
    public static final class LateLine implements MapFunction<TraceRecord, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(TraceRecord r) {
            return r.toLateLine();
        }
    }
}
