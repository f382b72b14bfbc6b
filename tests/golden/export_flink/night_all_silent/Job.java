// Job "night-all-silent", exported by wmrun @VERSION@ --export-flink from examples/night_all_silent.conf.
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
    static final double SPEED = 200;

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
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, processingTime(200));
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.getExecutionEnvironment(conf);

        // [source events]: generated, recorded by wmrun --sim, 8 partitions, watermarks per split
        // ends at 36000000 ms, where wmrun's run length ended it, if its records end before
        DataStream<TraceRecord> source0 = env
            .fromSource(new ReplaySource(trace(data, "source0.csv"), "events", 8, SPEED, 36000000L, origin),
                WatermarkStrategy.<TraceRecord>forBoundedOutOfOrderness(
                        Duration.ofMillis(5000))
                    .withIdleness(processingTime(60000)),
                "events")
            .setParallelism(2);

        // [window counts]
        boolean[] window1_columns = {true, true, false, false, false};
        OutputTag<TraceRecord> window1_late = new OutputTag<>("counts" + " late") {};
        SingleOutputStreamOperator<String> window1 = source0
            .keyBy(new TraceRecord.Key())
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(600000), Duration.ofMillis(0)))
            .trigger(new LateFiringTrigger(false))
            .allowedLateness(Duration.ofMillis(0))
            .sideOutputLateData(window1_late)
            .aggregate(new Aggregates(), new ResultLines<>(window1_columns, true,
                start, SPEED))
            .name("counts")
            .setParallelism(2)
            .setMaxParallelism(128);
        LineSink.header(output(out, "night-late.csv"), "partition,timestamp,key,value");
        window1.getSideOutput(window1_late)
            .map(new TraceRecord.LateLine())
            .setParallelism(2)
            .sinkTo(new LineSink(output(out, "night-late.csv")))
            .name("counts" + " late")
            .setParallelism(2);

        // [sink out]
        LineSink.header(output(out, "-"), ResultLines.header(window1_columns, false));
        window1.map(new ResultLines.WithoutSubtask())
            .setParallelism(2)
            .sinkTo(new LineSink(output(out, "-")))
            .name("out")
            .setParallelism(2);

        env.execute("night-all-silent");
    }
}
