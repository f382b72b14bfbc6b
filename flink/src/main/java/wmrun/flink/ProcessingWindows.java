package wmrun.flink;

import java.time.Duration;

import org.apache.flink.streaming.api.windowing.assigners.SlidingProcessingTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingProcessingTimeWindows;

/**
 * wmrun's processing-time windows ([window] time = processing) as Flink's
 * TumblingProcessingTimeWindows and SlidingProcessingTimeWindows. wmrun's
 * processing time is milliseconds since the job started, times the job's
 * speed; Flink's is the wall clock. A window of `size` ms of wmrun's
 * processing time is size / speed ms of the wall clock (wmrun refuses an
 * export where that is no whole number), and its windows start where
 * wmrun's do, at whole sizes (plus the offset) after the job's start:
 * Flink's offset is the start's remainder. ResultLines prints them back
 * in wmrun's processing time.
 */
public final class ProcessingWindows {
    private ProcessingWindows() {}

    /** Milliseconds of wmrun's processing time on the wall clock. */
    static long wall(long millis, double speed) {
        return Math.round(millis / speed);
    }

    /** The offset that puts window starts at startMillis + offset + k size. */
    static Duration aligned(long startMillis, long offset, long size, double speed) {
        return Duration.ofMillis(Math.floorMod(startMillis + wall(offset, speed), wall(size, speed)));
    }

    public static TumblingProcessingTimeWindows tumbling(long size, long offset, long startMillis,
            double speed) {
        return TumblingProcessingTimeWindows.of(Duration.ofMillis(wall(size, speed)),
                aligned(startMillis, offset, size, speed));
    }

    public static SlidingProcessingTimeWindows sliding(long size, long slide, long offset,
            long startMillis, double speed) {
        return SlidingProcessingTimeWindows.of(Duration.ofMillis(wall(size, speed)),
                Duration.ofMillis(wall(slide, speed)), aligned(startMillis, offset, slide, speed));
    }
}
