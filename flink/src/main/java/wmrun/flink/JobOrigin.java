package wmrun.flink;

import java.io.Serializable;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Processing time's zero for a whole job: the wall-clock moment every
 * reader of every replayed source has registered, as wmrun's processing
 * time starts when every subtask is ready. Each replay's enumerator
 * arrives once its own readers are all registered; the last arrival fixes
 * the origin for all of them, and each then hands its splits out with it
 * (ReplaySource). Arrival 0 of every trace is due at the origin, and
 * every record carries it (TraceRecord.origin), so that a window or a
 * join downstream, on whatever TaskManager, counts fire_time from the
 * same zero (ResultLines, JoinLines).
 *
 * Fixing the zero when the enumerators are made instead (they are, in the
 * JobManager, seconds before the readers run on a cluster's TaskManagers)
 * released the first seconds of every trace in one burst, and fixing it in
 * main() (the client's submission) shifted every fire_time by the
 * submission's seconds times the job's speed.
 *
 * Every enumerator of a job runs in the one JobManager, so the meeting
 * point is a map in this class, keyed by an id main() draws for the job;
 * the object itself is what main() hands to each ReplaySource.
 */
public final class JobOrigin implements Serializable {
    private static final long serialVersionUID = 1L;

    private static final Map<String, Meeting> MEETINGS = new ConcurrentHashMap<>();

    private final String id;
    private final int sources;

    /** The origin of a job with `sources` replayed sources. */
    public JobOrigin(int sources) {
        if (sources < 1) {
            throw new IllegalArgumentException("a job origin needs at least one source");
        }
        this.id = UUID.randomUUID().toString();
        this.sources = sources;
    }

    /** The sources that have arrived, and the origin once the last has. */
    private static final class Meeting {
        int arrived;
        final CompletableFuture<Long> origin = new CompletableFuture<>();
    }

    /**
     * One source's readers are all registered: the future completes with
     * the origin (in wall-clock milliseconds) when every source's are.
     * Called once per source, from its enumerator's thread. A meeting
     * stays once it is over (a few bytes a job in the JobManager): an
     * enumerator made again after a failure gets the same origin, and its
     * job's processing time goes on from where it was.
     */
    CompletableFuture<Long> arrive() {
        Meeting m = MEETINGS.computeIfAbsent(id, k -> new Meeting());
        boolean last;
        synchronized (m) {
            last = ++m.arrived == sources;
        }
        if (last) {
            m.origin.complete(System.currentTimeMillis());
        }
        return m.origin;
    }
}
