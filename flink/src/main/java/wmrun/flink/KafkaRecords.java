package wmrun.flink;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A Kafka record as wmrun's Kafka source reads it (doc/semantics.md
 * section 14.2): the timestamp the Kafka record's or the value's, the key
 * the Kafka key or the value's (a decimal long, or a string with string
 * keys), the value 1, the value as a decimal integer, or a field of a CSV
 * or flat JSON value; a punctuate field of 1 marks a record that carries
 * a watermark (PunctuatedWatermarks), a watermark field a watermark of its
 * own (empty in CSV, null or absent in JSON: none), a heartbeat field of
 * 1 a heartbeat (TraceRecord.NoHeartbeats drops it after the watermarks).
 * A line end at the end of the value is read past.
 *
 * A bad record (no key, no value where one is read, a field that does not
 * parse) fails the job naming topic, partition and offset, or with
 * skipBad is dropped, the first ten said on stderr. The first record of
 * each partition says on stderr which source subtask reads it, for a
 * comparison with wmrun's split owners.
 */
public final class KafkaRecords implements KafkaRecordDeserializationSchema<TraceRecord> {
    private static final long serialVersionUID = 1L;
    private static final int REPORTED = 10;

    private final String source;
    private final String format; /* none, number, csv, json */
    private final String[] fields; /* timestamp, key, value, punctuate, heartbeat, watermark, or _ */
    private final boolean timestampFromValue;
    private final boolean keyFromValue;
    private final boolean stringKeys;
    private final boolean skipBad;
    private transient Set<Integer> seen;
    private transient String subtask;
    private transient int skipped;

    public KafkaRecords(String source, String format, String[] fields, boolean timestampFromValue,
            boolean keyFromValue, boolean stringKeys, boolean skipBad) {
        this.source = source;
        this.format = format;
        this.fields = fields.clone();
        this.timestampFromValue = timestampFromValue;
        this.keyFromValue = keyFromValue;
        this.stringKeys = stringKeys;
        this.skipBad = skipBad;
    }

    /** kafka.starting_offsets = offsets P:O,...: partition, offset pairs of a topic. */
    public static Map<TopicPartition, Long> offsets(String topic, long... pairs) {
        Map<TopicPartition, Long> m = new HashMap<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            m.put(new TopicPartition(topic, (int) pairs[i]), pairs[i + 1]);
        }
        return m;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        Map<String, String> vars = context.getMetricGroup().getAllVariables();
        subtask = vars.getOrDefault("<subtask_index>", "?");
        seen = new HashSet<>();
    }

    @Override
    public TypeInformation<TraceRecord> getProducedType() {
        return TypeInformation.of(TraceRecord.class);
    }

    /** Why a record is bad. */
    private static final class Bad extends Exception {
        private static final long serialVersionUID = 1L;

        Bad(String why) {
            super(why, null, false, false);
        }
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> m, Collector<TraceRecord> out) {
        if (seen != null && seen.add(m.partition())) {
            System.err.println("wmrun-flink: source " + source + ": partition " + m.partition()
                    + " read by subtask " + subtask);
        }
        try {
            out.collect(read(m));
        } catch (Bad e) {
            String where = "kafka: topic \"" + m.topic() + "\" partition " + m.partition() + " offset "
                    + m.offset() + ": " + e.getMessage();
            if (!skipBad) {
                throw new IllegalArgumentException(where);
            }
            if (skipped++ < REPORTED) {
                System.err.println("wmrun-flink: " + where + ": skipped");
            }
        }
    }

    private TraceRecord read(ConsumerRecord<byte[], byte[]> m) throws Bad {
        TraceRecord r = new TraceRecord();
        /* by field: timestamp, key, value, punctuate, heartbeat, watermark */
        String[] got = new String[6];
        r.partition = m.partition();
        r.value = 1;
        if (!format.equals("none")) {
            if (m.value() == null) {
                throw new Bad("no value (a tombstone)");
            }
            String text = new String(m.value(), StandardCharsets.UTF_8);
            if (text.endsWith("\n")) {
                text = text.substring(0, text.length() - 1);
            }
            if (text.endsWith("\r")) {
                text = text.substring(0, text.length() - 1);
            }
            switch (format) {
                case "number":
                    r.value = number("value", text);
                    break;
                case "csv":
                    csv(text, got);
                    break;
                default:
                    json(text, got);
                    break;
            }
            if (got[2] != null) {
                r.value = number("value", got[2]);
            }
            if (got[3] != null) {
                long mark = number("punctuate", got[3]);
                if (mark != 0 && mark != 1) {
                    throw new Bad("invalid punctuate \"" + got[3] + "\"");
                }
                r.punctuate = mark == 1;
            }
            if (got[4] != null) {
                long beat = number("heartbeat", got[4]);
                if (beat != 0 && beat != 1) {
                    throw new Bad("invalid heartbeat \"" + got[4] + "\"");
                }
                r.heartbeat = beat == 1;
            }
            if (got[5] != null && !got[5].isEmpty() && !got[5].equals("null")) {
                r.watermark = number("watermark", got[5]);
            }
        }
        if (timestampFromValue) {
            r.timestamp = number("timestamp", got[0]);
        } else if (m.timestamp() < 0) {
            throw new Bad("no timestamp");
        } else {
            r.timestamp = m.timestamp();
        }
        String key = got[1];
        if (!keyFromValue) {
            if (m.key() == null) {
                throw new Bad("no key (the record's key is null)");
            }
            key = new String(m.key(), StandardCharsets.UTF_8);
        }
        if (stringKeys) {
            r.stringKey = key;
        } else {
            r.key = number("key", key);
        }
        return r;
    }

    private static long number(String what, String text) throws Bad {
        if (text == null) {
            throw new Bad("no " + what);
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new Bad("invalid " + what + " \"" + text + "\"");
        }
    }

    /** The slot of a field's name in got[], or -1 for one read past. */
    private static int slot(String field) {
        switch (field) {
            case "timestamp":
                return 0;
            case "key":
                return 1;
            case "value":
                return 2;
            case "punctuate":
                return 3;
            case "heartbeat":
                return 4;
            case "watermark":
                return 5;
            default:
                return -1;
        }
    }

    /** The CSV columns, in fields' order, quotes (RFC 4180) taken off. */
    private void csv(String text, String[] got) throws Bad {
        int i = 0;
        for (int f = 0; f < fields.length; f++) {
            if (i > text.length()) {
                throw new Bad("expected " + fields.length + " fields, found " + f);
            }
            StringBuilder b = new StringBuilder();
            if (i < text.length() && text.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= text.length()) {
                        throw new Bad("a quote is not closed");
                    }
                    char c = text.charAt(i++);
                    if (c == '"' && i < text.length() && text.charAt(i) == '"') {
                        b.append('"');
                        i++;
                    } else if (c == '"') {
                        break;
                    } else {
                        b.append(c);
                    }
                }
                if (i < text.length() && text.charAt(i) != ',') {
                    throw new Bad("text after a quoted field");
                }
            } else {
                int end = text.indexOf(',', i);
                end = end < 0 ? text.length() : end;
                b.append(text, i, end);
                i = end;
            }
            i++; /* past the comma */
            if (slot(fields[f]) >= 0) {
                got[slot(fields[f])] = b.toString();
            }
        }
        if (i <= text.length()) {
            throw new Bad("expected " + fields.length + " fields, found more");
        }
    }

    /** The members of a flat JSON object that fields names; others read past. */
    private void json(String text, String[] got) throws Bad {
        Json j = new Json(text);
        j.expect('{');
        if (j.peek() == '}') {
            j.i++;
        } else {
            do {
                String name = j.string();
                j.expect(':');
                String v = j.peek() == '"' ? j.string() : j.scalar();
                for (String f : fields) {
                    if (f.equals(name) && slot(f) >= 0) {
                        got[slot(f)] = v;
                    }
                }
            } while (j.comma());
            j.expect('}');
        }
        if (j.peek() != 0) {
            throw new Bad("text after the JSON object");
        }
    }

    /** A cursor over a flat JSON object. */
    private static final class Json {
        final String s;
        int i;

        Json(String s) {
            this.s = s;
        }

        char peek() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            return i < s.length() ? s.charAt(i) : 0;
        }

        void expect(char c) throws Bad {
            if (peek() != c) {
                throw new Bad("expected '" + c + "' in the JSON value");
            }
            i++;
        }

        boolean comma() {
            if (peek() == ',') {
                i++;
                return true;
            }
            return false;
        }

        String string() throws Bad {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (i < s.length() && s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\' && i < s.length()) {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n':
                            b.append('\n');
                            break;
                        case 't':
                            b.append('\t');
                            break;
                        case 'r':
                            b.append('\r');
                            break;
                        case 'b':
                            b.append('\b');
                            break;
                        case 'f':
                            b.append('\f');
                            break;
                        case 'u':
                            if (i + 4 > s.length()) {
                                throw new Bad("a \\u escape is cut");
                            }
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                            break;
                        default:
                            b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
            expect('"');
            return b.toString();
        }

        /** A number, true, false or null, as its text. */
        String scalar() throws Bad {
            int start = i;
            while (i < s.length() && ",}] \t\r\n".indexOf(s.charAt(i)) < 0) {
                i++;
            }
            if (i == start) {
                throw new Bad("expected a member's value in the JSON value");
            }
            return s.substring(start, i);
        }
    }
}
