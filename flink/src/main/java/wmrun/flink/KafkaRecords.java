package wmrun.flink;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.StreamReadConstraints;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.StreamReadFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A Kafka record as wmrun's Kafka source reads it (doc/semantics.md
 * section 14.2): the timestamp the Kafka record's or the value's, the key
 * the Kafka key or the value's (a decimal long, or a string with string
 * keys), the value 1, the value as a decimal integer, or a field of a CSV
 * or JSON value; a punctuate field of 1 marks a record that carries
 * a watermark (PunctuatedWatermarks), a watermark field a watermark of its
 * own (empty in CSV, null or absent in JSON: none), a heartbeat field of
 * 1 a heartbeat (TraceRecord.NoHeartbeats drops it after the watermarks).
 * A line end at the end of the value is read past.
 *
 * JSON is read as wmrun reads it (runtime/source/record_fields.h), by
 * the Jackson that Flink ships (shaded in flink-core): exactly one object
 * of valid UTF-8, a name given twice in any object refused, every member
 * the fields do not name read past whatever it holds (nesting, decimals),
 * but the whole line refused, as jansson refuses it, for an integer
 * beyond 64 bits, a real beyond a double, an escaped NUL or a lone
 * surrogate anywhere in it. A field is the member of its name at the top
 * level, or at its path (kafka.value_fields = timestamp = $.payload.ts:
 * the names on the way, passed from wmrun's parsed path). An integer
 * field takes a JSON integer, or a real of no fraction up to 2^53 (a
 * double holds every integer up to there); a fraction, a bigger real or
 * any other type is a bad record. The key is a string, or an integer (as
 * its decimal text with string keys, where a real is its shortest text as
 * wmrun prints it); a long key must be a JSON integer.
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
    /* JSON: by field, the member names from the top down to it; null for
     * the member of the field's name at the top level. */
    private final String[][] paths;
    private final boolean timestampFromValue;
    private final boolean keyFromValue;
    private final boolean stringKeys;
    private final boolean skipBad;
    private transient Set<Integer> seen;
    private transient String subtask;
    private transient int skipped;

    public KafkaRecords(String source, String format, String[] fields, String[][] paths,
            boolean timestampFromValue, boolean keyFromValue, boolean stringKeys, boolean skipBad) {
        this.source = source;
        this.format = format;
        this.fields = fields.clone();
        this.paths = paths.clone();
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
            /* Strict where wmrun is: JSON, and a CSV value that holds a
             * string key, which wmrun takes as well-formed UTF-8 only (an
             * ill-formed byte in a CSV column nobody reads is refused here
             * and read past by wmrun: the one difference left). */
            String text;
            if (format.equals("json")) {
                text = strictUtf8(m.value(), "invalid JSON: not valid UTF-8");
            } else if (format.equals("csv") && stringKeys && keyFromValue) {
                text = strictUtf8(m.value(), "invalid key (not valid UTF-8)");
            } else {
                text = new String(m.value(), StandardCharsets.UTF_8);
            }
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
            key = stringKeys ? strictUtf8(m.key(), "invalid key (not valid UTF-8)")
                    : new String(m.key(), StandardCharsets.UTF_8);
        }
        if (stringKeys) {
            checkKey(key);
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

    /*
     * A string key as wmrun takes one (runtime/io/keys.h): at most
     * KEY_MAX_BYTES bytes of UTF-8 and no control character (U+0000 to
     * U+001F, U+007F to U+009F), which wmrun refuses so that a key prints
     * back unambiguously in CSV and JSON. Flink would take any String: the
     * same record must be bad on both sides, or their counts part.
     */
    private static final int KEY_MAX_BYTES = 256;

    private static void checkKey(String key) throws Bad {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c < 0xa0)) {
                throw new Bad(String.format("invalid key (control character U+%04X)", (int) c));
            }
        }
        if (key.getBytes(StandardCharsets.UTF_8).length > KEY_MAX_BYTES) {
            throw new Bad("invalid key (longer than " + KEY_MAX_BYTES + " bytes)");
        }
    }

    /** The bytes as well-formed UTF-8 (as jansson and wmrun's keys take them), or a bad record saying why. */
    private static String strictUtf8(byte[] bytes, String why) throws Bad {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new Bad(why);
        }
    }

    /*
     * jansson's reading (json_loadb with JSON_REJECT_DUPLICATES, wmrun's
     * flags): a repeated name refused, nothing but blanks after the
     * object, containers nested at most 2048 deep (its
     * JSON_PARSER_MAX_DEPTH). Integers within 64 bits are IntNode or
     * LongNode, others BigIntegerNode (refused in checkTree()); reals
     * DoubleNode.
     */
    private static final ObjectMapper JSON = JsonMapper
            .builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(2048).build())
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    /** 2^53: every integer up to it is a double, exactly. */
    private static final double EXACT_REAL = 9007199254740992.0;

    /** The fields of a JSON object, each at its path or top-level name; others read past. */
    private void json(String text, String[] got) throws Bad {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new Bad("invalid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new Bad("invalid JSON: expected an object");
        }
        checkTree(root);
        for (int f = 0; f < fields.length; f++) {
            int slot = slot(fields[f]);
            if (slot < 0) {
                continue;
            }
            JsonNode v = member(root, fields[f], f < paths.length ? paths[f] : null);
            boolean maybe = fields[f].equals("watermark");
            if (v == null || (maybe && v.isNull())) {
                if (!maybe) {
                    throw new Bad("invalid line: no " + fields[f]);
                }
                continue;
            }
            got[slot] = fields[f].equals("key") ? jsonKey(v) : Long.toString(jsonInt(fields[f], v));
        }
    }

    /** The member at path (or of its name at the top level), or null if absent or under no object. */
    private static JsonNode member(JsonNode root, String name, String[] path) {
        if (path == null) {
            return root.get(name);
        }
        JsonNode n = root;
        for (String step : path) {
            if (n == null || !n.isObject()) {
                return null;
            }
            n = n.get(step);
        }
        return n;
    }

    /** What jansson refuses anywhere in a line but Jackson reads. */
    private static void checkTree(JsonNode n) throws Bad {
        if (n.isBigInteger()) {
            throw new Bad("invalid JSON: too big integer");
        }
        if (n.isDouble() && !Double.isFinite(n.doubleValue())) {
            throw new Bad("invalid JSON: real number overflow");
        }
        if (n.isTextual()) {
            checkText(n.textValue());
        }
        if (n.isObject()) {
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                checkText(e.getKey());
                checkTree(e.getValue());
            }
        } else if (n.isArray()) {
            for (JsonNode e : n) {
                checkTree(e);
            }
        }
    }

    /** A NUL (jansson's JSON_ALLOW_NUL is off) or a lone surrogate (no Unicode) is refused. */
    private static void checkText(String s) throws Bad {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                throw new Bad("invalid JSON: \\u0000 is not allowed");
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new Bad("invalid JSON: a lone surrogate");
            }
        }
    }

    /** An integer field: a JSON integer, or a real of no fraction up to 2^53. */
    private static long jsonInt(String what, JsonNode v) throws Bad {
        if (v.isIntegralNumber()) {
            return v.longValue();
        }
        if (!v.isDouble()) {
            throw new Bad("invalid " + what + " " + v + " (expected an integer)");
        }
        double d = v.doubleValue();
        if (d != Math.rint(d)) {
            throw new Bad("invalid " + what + " " + v + " (a fraction: expected an integer)");
        }
        if (Math.abs(d) > EXACT_REAL) {
            throw new Bad("invalid " + what + " " + v + " (a real beyond 2^53)");
        }
        return (long) d;
    }

    /**
     * The key's text: a string's, an integer's decimal, or a real's as wmrun
     * writes it; when it is the record's key and keys are long, only an
     * integer, as wmrun reads them (a string "42" is no long).
     */
    private String jsonKey(JsonNode v) throws Bad {
        if (v.isIntegralNumber()) {
            return Long.toString(v.longValue());
        }
        if (keyFromValue && !stringKeys && (v.isTextual() || v.isDouble())) {
            throw new Bad("invalid key " + v + " (expected a 64-bit integer)");
        }
        if (v.isTextual()) {
            return v.textValue();
        }
        if (v.isDouble()) {
            return realText(v.doubleValue());
        }
        throw new Bad("invalid key " + v + " (expected a string or an integer)");
    }

    /**
     * A finite double as wmrun's real_text() writes it: C's "%.Pg" for the
     * least P from 1 to 17 that reads back as d (12.5, 1e+20, 1e-05).
     */
    static String realText(double d) {
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        BigDecimal exact = new BigDecimal(d);
        for (int p = 1;; p++) {
            /* glibc rounds the exact binary value, half to even. */
            BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (p < 17 && r.doubleValue() != d) {
                continue;
            }
            int x = r.precision() - r.scale() - 1; /* the decimal exponent */
            if (x < -4 || x >= p) {
                String digits = r.unscaledValue().abs().toString().replaceAll("0+$", "");
                String mantissa = digits.length() > 1 ? digits.charAt(0) + "." + digits.substring(1)
                        : digits;
                return (d < 0 ? "-" : "") + mantissa + "e" + (x < 0 ? "-" : "+")
                        + (Math.abs(x) < 10 ? "0" : "") + Math.abs(x);
            }
            String plain = r.toPlainString();
            if (plain.contains(".")) {
                plain = plain.replaceAll("0+$", "").replaceAll("\\.$", "");
            }
            return plain;
        }
    }
}
