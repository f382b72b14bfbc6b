// Job "restart-quiet-partition", exported by wmrun @VERSION@ --export-flink from examples/restart_quiet_partition.conf.
// Flink 2.3.0. Build with `mvn -q package`; run it locally on Flink's MiniCluster
// with `mvn -q exec:exec`, or on a cluster with `flink run target/wmrun-flink-job.jar
// DATA_DIR OUT_DIR` (default data and .: the traces, and where relative
// output paths go). README.md says more.
package wmrun.flink;

import java.nio.file.Paths;
import java.time.Duration;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;
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
        // [job] checkpoints and restarts
        String checkpoints = output(out, "restart-quiet-partition.checkpoints");
        String run = CommittedLineSink.newRun();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, processingTime(600000));
        conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
            CheckpointingMode.EXACTLY_ONCE);
        conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, processingTime(600000));
        conf.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, Integer.MAX_VALUE);
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY,
            Paths.get(checkpoints).toUri().toString());
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 2);
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
            ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(JobManagerOptions.EXECUTION_FAILOVER_STRATEGY, "full");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
            processingTime(1000));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
            processingTime(60000));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER,
            1.5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,
            processingTime(3600000));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR,
            0.1);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS,
            2147483647);
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.getExecutionEnvironment(conf);

        // [source events]: generated, recorded by wmrun --sim, 16 partitions, watermarks per split
        // ends at 14400000 ms, where wmrun's run length ended it, if its records end before
        DataStream<TraceRecord> source0 = env
            .fromSource(new ReplaySource(trace(data, "source0.csv"), "events", 16, SPEED, 14400000L, origin),
                WatermarkStrategy.<TraceRecord>forBoundedOutOfOrderness(
                        Duration.ofMillis(5000))
                    .withIdleness(processingTime(30000)),
                "events")
            .setParallelism(4)
            .transform("events" + " fail_at", FailAt.TYPE,
                new FailAt("events", 7200000L, start, SPEED))
            .setParallelism(4);

        // [window counts]
        boolean[] window1_columns = {true, true, false, false, false};
        SingleOutputStreamOperator<String> window1 = source0
            .keyBy(new TraceRecord.Key())
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

        env.execute("restart-quiet-partition");
    }
}
