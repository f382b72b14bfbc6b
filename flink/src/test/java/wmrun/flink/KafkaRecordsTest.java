package wmrun.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** JSON values read as wmrun reads them (runtime/source/record_fields.h), through Flink's Jackson. */
class KafkaRecordsTest {
    /* timestamp at $.payload.ts, key at the top level, value at $['payload'].v */
    private static final String[] FIELDS = {"timestamp", "key", "value"};
    private static final String[][] PATHS = {{"payload", "ts"}, null, {"payload", "v"}};

    private static List<TraceRecord> read(boolean stringKeys, boolean skipBad, String... values) {
        KafkaRecords k = new KafkaRecords("s", "json", FIELDS, PATHS, true, true, stringKeys, skipBad);
        List<TraceRecord> out = new ArrayList<>();
        Collector<TraceRecord> c = new Collector<TraceRecord>() {
            @Override
            public void collect(TraceRecord r) {
                out.add(r);
            }

            @Override
            public void close() {
            }
        };
        long offset = 0;
        for (String v : values) {
            k.deserialize(new ConsumerRecord<>("t", 0, offset++, null, v.getBytes(StandardCharsets.UTF_8)), c);
        }
        return out;
    }

    @Test
    void fieldsAtTheirPathsOthersReadPast() {
        List<TraceRecord> r = read(false, false,
                "{\"meta\":{\"a\":[1,2.5,{\"b\":null}]},\"payload\":{\"v\":3,\"ts\":1700000000123},"
                        + "\"key\":7,\"x\":-1.5e-3,\"s\":\"caf\\u00e9 \\ud83d\\ude00\"}\r\n",
                " { \"key\" : 8 , \"payload\" : { \"ts\" : 1700000000000.0 , \"v\" : 4.0e0 } } ");
        assertEquals(2, r.size());
        assertEquals(1700000000123L, r.get(0).timestamp);
        assertEquals(7, r.get(0).key);
        assertEquals(3, r.get(0).value);
        assertEquals(1700000000000L, r.get(1).timestamp);
        assertEquals(4, r.get(1).value);
    }

    @Test
    void whatWmrunRefusesIsABadRecord() {
        String ok = "\"payload\":{\"ts\":1,\"v\":2},\"key\":3";
        String[] bad = {
            "{\"payload\":{\"ts\":1.5,\"v\":2},\"key\":3}", /* a fraction */
            "{\"payload\":{\"ts\":\"1\",\"v\":2},\"key\":3}", /* a string for an integer */
            "{\"payload\":{\"ts\":1.0e17,\"v\":2},\"key\":3}", /* a real beyond 2^53 */
            "{\"payload\":{\"ts\":1,\"v\":true},\"key\":3}",
            "{" + ok + ",\"key\":3}", /* a name twice */
            "{\"payload\":{\"ts\":1,\"ts\":1,\"v\":2},\"key\":3}", /* nested too */
            "{" + ok + ",\"n\":123456789012345678901234}", /* beyond 64 bits, anywhere */
            "{" + ok + ",\"r\":1e400}", /* beyond a double */
            "{" + ok + ",\"s\":\"a\\u0000\"}",
            "{" + ok + ",\"s\":\"\\ud83d\"}", /* a lone surrogate */
            "{\"payload\":{\"ts\":1,\"v\":2},\"key\":\"3\"}", /* a string key where keys are long */
            "{\"payload\":[1,2],\"key\":3}", /* no object on the way */
            "{\"payload\":{\"v\":2},\"key\":3}", /* absent */
            "{" + ok + "} x",
            "[1]",
            "{" + ok + ",}",
        };
        for (String b : bad) {
            assertTrue(read(false, true, b).isEmpty(), b);
            assertThrows(IllegalArgumentException.class, () -> read(false, false, b), b);
        }
        assertEquals(1, read(false, true, "{" + ok + "}").size());
        /* Not UTF-8. */
        KafkaRecords k = new KafkaRecords("s", "json", FIELDS, PATHS, true, true, false, false);
        byte[] latin1 = ("{" + ok + ",\"s\":\"caf\u00e9\"}").getBytes(StandardCharsets.ISO_8859_1);
        assertThrows(IllegalArgumentException.class,
                () -> k.deserialize(new ConsumerRecord<>("t", 0, 0L, null, latin1), null));
    }

    @Test
    void stringKeysAreTheTextWmrunInterns() {
        List<TraceRecord> r = read(true, false,
                "{\"payload\":{\"ts\":1,\"v\":2},\"key\":\"a\\\"b\\\\c\"}",
                "{\"payload\":{\"ts\":1,\"v\":2},\"key\":42}",
                "{\"payload\":{\"ts\":1,\"v\":2},\"key\":12.5}");
        assertEquals("a\"b\\c", r.get(0).stringKey);
        assertEquals("42", r.get(1).stringKey);
        assertEquals("12.5", r.get(2).stringKey);
    }

    @Test
    void stringKeysWmrunRefusesAreBadRecords() {
        String[] bad = {
            "{\"payload\":{\"ts\":1,\"v\":2},\"key\":\"a\\u0001\"}", /* C0 */
            "{\"payload\":{\"ts\":1,\"v\":2},\"key\":\"\\u007f\"}", /* DEL */
            "{\"payload\":{\"ts\":1,\"v\":2},\"key\":\"\\u0085\"}", /* C1 */
            "{\"payload\":{\"ts\":1,\"v\":2},\"key\":\"" + "k".repeat(257) + "\"}",
            /* 129 two-byte letters: 129 chars, but 258 bytes */
            "{\"payload\":{\"ts\":1,\"v\":2},\"key\":\"" + "\u00e9".repeat(129) + "\"}",
        };
        for (String b : bad) {
            assertTrue(read(true, true, b).isEmpty(), b);
        }
        String longest = "k".repeat(256);
        assertEquals(longest, read(true, true, "{\"payload\":{\"ts\":1,\"v\":2},\"key\":\"" + longest + "\"}")
                .get(0).stringKey);
        /* The Kafka key itself (kafka.key = key): well-formed UTF-8 only. */
        String[] fields = {"timestamp", "value"};
        KafkaRecords k = new KafkaRecords("s", "json", fields, new String[][] {null, null}, true, false, true, false);
        byte[] value = "{\"timestamp\":1,\"value\":2}".getBytes(StandardCharsets.UTF_8);
        byte[] latin1 = "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
        assertThrows(IllegalArgumentException.class,
                () -> k.deserialize(new ConsumerRecord<>("t", 0, 0L, latin1, value), null));
    }

    @Test
    void realsAreWrittenAsCsShortestG() {
        assertEquals("12.5", KafkaRecords.realText(12.5));
        assertEquals("1.7e+12", KafkaRecords.realText(1700000000000.0));
        assertEquals("1e+20", KafkaRecords.realText(1e20));
        assertEquals("0.0001", KafkaRecords.realText(0.0001));
        assertEquals("1e-05", KafkaRecords.realText(0.00001));
        assertEquals("0.1", KafkaRecords.realText(0.1));
        assertEquals("-2.5", KafkaRecords.realText(-2.5));
        assertEquals("1e+02", KafkaRecords.realText(100.0));
        assertEquals("123456", KafkaRecords.realText(123456.0));
        assertEquals("0.30000000000000004", KafkaRecords.realText(0.1 + 0.2));
    }
}
