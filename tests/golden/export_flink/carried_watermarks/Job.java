// Job "carried-watermarks", exported by wmrun @VERSION@ --export-flink from examples/carried_watermarks.conf.
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
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.util.OutputTag;

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
        JobOrigin origin = new JobOrigin(1);
        Configuration conf = new Configuration();
        PrometheusReporting.configure(conf);
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, processingTime(0));
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.getExecutionEnvironment(conf);

        // [source orders]: examples/cdc_orders.csv, 2 partitions, watermarks per split
        DataStream<TraceRecord> source0 = env
            .fromSource(new ReplaySource(trace(data, "source0.csv"), "orders", 2, SPEED, origin),
                PunctuatedWatermarks.strategy(),
                "orders")
            .setParallelism(1);

        // [window per_product]
        boolean[] window1_columns = {true, true, false, false, false};
        OutputTag<TraceRecord> window1_late = new OutputTag<>("per_product" + " late") {};
        SingleOutputStreamOperator<String> window1 = source0
            .keyBy(new TraceRecord.Key())
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10000), Duration.ofMillis(0)))
            .trigger(new LateFiringTrigger(false))
            .allowedLateness(Duration.ofMillis(0))
            .sideOutputLateData(window1_late)
            .aggregate(new Aggregates(), new ResultLines<>(window1_columns, true,
                start, SPEED))
            .name("per_product")
            .setParallelism(1)
            .setMaxParallelism(128);
        LineSink.header(output(out, "-"), "partition,timestamp,key,value");
        window1.getSideOutput(window1_late)
            .map(new TraceRecord.LateLine())
            .setParallelism(1)
            .sinkTo(new LineSink(output(out, "-")))
            .name("per_product" + " late")
            .setParallelism(1);

        // [sink out]
        LineSink.header(output(out, "-"), ResultLines.header(window1_columns, false));
        window1.map(new ResultLines.WithoutSubtask())
            .setParallelism(1)
            .sinkTo(new LineSink(output(out, "-")))
            .name("out")
            .setParallelism(1);

        env.execute("carried-watermarks");
    }
}
