// Job "kafka-quiet-partitions", exported by wmrun @VERSION@ --export-flink from examples/kafka_quiet_partitions.conf.
// Flink 2.3.0. Build with `mvn -q package`; run it locally on Flink's MiniCluster
// with `mvn -q exec:exec`, or on a cluster with `flink run target/wmrun-flink-job.jar
// DATA_DIR OUT_DIR` (default data and .: the traces, and where relative
// output paths go). README.md says more.
package wmrun.flink;

import java.nio.file.Paths;
import java.time.Duration;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

public final class Job {
    /** [job] speed, or less where a processing-time duration would
     *  come to under a millisecond: processing time runs this much
     *  faster than the wall clock. */
    static final double SPEED = 1;

    /** A duration of wmrun's processing time on Flink's wall clock. */
    static Duration processingTime(long millis) {
        return Duration.ofNanos((long) (millis * 1e6 / SPEED));
    }

    static String trace(String dir, String name) {
        return Paths.get(dir, name).toAbsolutePath().toString();
    }

    /** An output path of the topology: "-" and absolute paths as they are. */
    static String output(String dir, String path) {
        return path.equals("-") || Paths.get(path).isAbsolute() ? path
                : Paths.get(dir, path).toString();
    }

    public static void main(String[] args) throws Exception {
        String data = args.length > 0 ? args[0] : "data";
        String out = args.length > 1 ? args[1] : ".";
        long start = System.currentTimeMillis();
        Configuration conf = new Configuration();
        PrometheusReporting.configure(conf);
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, processingTime(200));
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.getExecutionEnvironment(conf);

        // [source events]: Kafka topic events, watermarks per split
        KafkaSource<TraceRecord> source0_kafka = KafkaSource.<TraceRecord>builder()
            .setBootstrapServers("localhost:9092")
            .setTopics("events")
            .setProperty("commit.offsets.on.checkpoint", "false")
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setProperty("partition.discovery.interval.ms", "30000")
            .setDeserializer(new KafkaRecords("events", "none", new String[] {},
                new String[][] {},
                false, false, true, false))
            .build();
        DataStream<TraceRecord> source0 = env
            .fromSource(source0_kafka,
                WatermarkStrategy.<TraceRecord>forBoundedOutOfOrderness(
                        Duration.ofMillis(5000))
                    .withIdleness(processingTime(30000)),
                "events")
            .setParallelism(4);

        // [window counts]
        boolean[] window1_columns = {true, false, false, false, false};
        SingleOutputStreamOperator<String> window1 = source0
            .keyBy(new TraceRecord.StringKey())
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(600000), Duration.ofMillis(0)))
            .trigger(new LateFiringTrigger(false))
            .allowedLateness(Duration.ofMillis(0))
            .aggregate(new Aggregates(), new ResultLines<>(window1_columns, true,
                start, SPEED))
            .name("counts")
            .setParallelism(2)
            .setMaxParallelism(128);

        // [sink out]
        LineSink.header(output(out, "-"), ResultLines.header(window1_columns, false));
        window1.map(new ResultLines.WithoutSubtask())
            .setParallelism(2)
            .sinkTo(new LineSink(output(out, "-")))
            .name("out")
            .setParallelism(2);

        env.execute("kafka-quiet-partitions");
    }
}
