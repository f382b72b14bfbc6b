// Job "click attribution", exported by wmrun @VERSION@ --export-flink from examples/interval_join_clicks.conf.
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
        JobOrigin origin = new JobOrigin(2);
        Configuration conf = new Configuration();
        PrometheusReporting.configure(conf);
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, processingTime(200));
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.getExecutionEnvironment(conf);

        // [source impressions]: generated, recorded by wmrun --sim, 4 partitions, watermarks per split
        // ends at 10800000 ms, where wmrun's run length ended it, if its records end before
        DataStream<TraceRecord> source0 = env
            .fromSource(new ReplaySource(trace(data, "source0.csv"), "impressions", 4, SPEED, 10800000L, origin),
                WatermarkStrategy.<TraceRecord>forBoundedOutOfOrderness(
                        Duration.ofMillis(5000)),
                "impressions")
            .setParallelism(2);

        // [source clicks]: generated, recorded by wmrun --sim, 2 partitions, watermarks per split
        // ends at 10800000 ms, where wmrun's run length ended it, if its records end before
        DataStream<TraceRecord> source1 = env
            .fromSource(new ReplaySource(trace(data, "source1.csv"), "clicks", 2, SPEED, 10800000L, origin),
                WatermarkStrategy.<TraceRecord>forBoundedOutOfOrderness(
                        Duration.ofMillis(5000)),
                "clicks")
            .setParallelism(1);

        // [join attributed]: left source0, right source1
        SingleOutputStreamOperator<JoinLines.Pair> join2_pairs = source0
            .keyBy(new TraceRecord.Key())
            .intervalJoin(source1.keyBy(new TraceRecord.Key()))
            .between(Duration.ofMillis(0), Duration.ofMillis(600000))
            .process(new JoinLines.IntervalPairs())
            .name("attributed")
            .setParallelism(2)
            .setMaxParallelism(128);
        SingleOutputStreamOperator<String> join2_lines = join2_pairs
            .process(new JoinLines(start, SPEED))
            .name("attributed" + " pairs")
            .setParallelism(2);

        // [sink pairs]
        LineSink.header(output(out, "/dev/null"), JoinLines.header(false));
        join2_lines.map(new ResultLines.WithoutSubtask())
            .setParallelism(2)
            .sinkTo(new LineSink(output(out, "/dev/null")))
            .name("pairs")
            .setParallelism(2);

        env.execute("click attribution");
    }
}
