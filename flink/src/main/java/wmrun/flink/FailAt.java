package wmrun.flink;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * wmrun's [job] fail_at: the job crashes at that processing time, once,
 * and restarts as its restart strategy says, from its latest complete
 * checkpoint. Chained to every subtask of every source, records and
 * watermarks passing unchanged: each subtask throws at fail_at, on its
 * first execution attempt only (a restarted job does not crash again, as
 * wmrun's does not), and Job.java sets Flink's full failover strategy, so
 * that the first of them restarts every task of the job, as wmrun's crash
 * does every subtask (doc/semantics.md 12.4). The others' failures come
 * from tasks Flink is cancelling already, and count as no other failure.
 *
 * The time is counted from the job's processing-time zero, which a
 * subtask learns from its first record (TraceRecord.origin, JobOrigin; a
 * Kafka record carries none, and main()'s start is the zero, as in
 * ResultLines): fail_at / SPEED after it, on a processing-time timer of
 * Flink's, so that the crash comes on time whether records flow then or
 * not. A subtask that reads nothing before fail_at crashes at its first
 * record; one that reads nothing never does, and another does.
 *
 * Both moments are said on standard error, Flink's own log being off
 * (slf4j-nop): the crash, and each restored subtask's checkpoint.
 */
public final class FailAt extends AbstractStreamOperator<TraceRecord>
        implements OneInputStreamOperator<TraceRecord, TraceRecord> {
    private static final long serialVersionUID = 1L;

    /** The records' type, for DataStream.transform. */
    public static final TypeInformation<TraceRecord> TYPE = TypeInformation.of(TraceRecord.class);

    private final String source;
    private final long failAtMillis;
    private final long startMillis;
    private final double speed;
    private transient boolean armed;

    /**
     * source: the source's name, for the messages; failAtMillis: fail_at,
     * in wmrun's processing time; startMillis: main()'s start, the zero of
     * records without an origin; speed: the job's SPEED.
     */
    public FailAt(String source, long failAtMillis, long startMillis, double speed) {
        this.source = source;
        this.failAtMillis = failAtMillis;
        this.startMillis = startMillis;
        this.speed = speed;
    }

    private int subtask() {
        return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    }

    private int attempt() {
        return getRuntimeContext().getTaskInfo().getAttemptNumber();
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        if (attempt() == 0) {
            return;
        }
        System.err.println("wmrun: source \"" + source + "\" subtask " + subtask() + ": attempt " + attempt()
                + (context.getRestoredCheckpointId().isPresent()
                        ? ", restored from checkpoint " + context.getRestoredCheckpointId().getAsLong()
                        : ", from the beginning (no checkpoint complete)"));
    }

    @Override
    public void processElement(StreamRecord<TraceRecord> element) throws Exception {
        if (!armed && attempt() == 0) {
            armed = true;
            long origin = element.getValue().origin != 0 ? element.getValue().origin : startMillis;
            long due = origin + (long) Math.ceil(failAtMillis / speed);
            getProcessingTimeService().registerTimer(due, now -> crash());
        }
        output.collect(element);
    }

    private void crash() {
        String what = "source \"" + source + "\" subtask " + subtask() + " crashes at fail_at = " + failAtMillis
                + " ms of processing time";
        System.err.println("wmrun: " + what);
        throw new IllegalStateException("wmrun: " + what);
    }
}
