package wmrun.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Lines into one file, each once across restarts, as wmrun's file sinks
 * and late outputs are when a job takes checkpoints (wmrun's
 * doc/architecture.md section 9.5, whose protocol this is in Flink's terms):
 *
 * <ul>
 *   <li>each writer (a subtask of the stage the sink reads) writes into
 *       part files of its own, never into the file, and seals its part at
 *       each checkpoint's barrier (prepareCommit: written, fsync'd): the
 *       part is the committable;
 *   <li>every part goes to one committer for the file (the first committer
 *       subtask: a pre-commit topology sends them all there), which, once
 *       the checkpoint is complete, appends them to the file in writer
 *       order, as wmrun's committer appends a checkpoint's parts;
 *   <li>a restored writer deletes its parts sealed or opened after the
 *       checkpoint it restores (its state is the number of its next
 *       part): they held results fired before the crash that the restored
 *       job fires again.
 * </ul>
 *
 * One file, as wmrun writes it, rather than Flink's FileSink, which writes
 * a directory of part files: the exported job's outputs are then wmrun's
 * byte for byte but for the order of the checkpoints' parts and the
 * processing-time columns.
 *
 * Flink commits a checkpoint's committables again after a restore that
 * finds them in the restored state, whether they were committed before
 * the crash or not, and a crash can cut a commit short; so a commit is
 * idempotent, by a journal: before appending, the committer writes the
 * file's committed length and the parts, in order, to
 * PARTS/RUN.commit (temporary name, fsync, rename); then it truncates the
 * file to that length, appends the parts, fsyncs the file, deletes the
 * parts and last the journal. A journal found whose parts are all there
 * is a commit that appended nothing durable: done again from its length;
 * one with a part missing is one whose deletes had begun, after the
 * fsync: its other parts are deleted. Parts none of which is there were
 * committed. RUN, drawn by main() for each run of the job, keeps one run's
 * parts from another's in a directory that outlives them.
 */
public final class CommittedLineSink implements Sink<String>, SupportsWriterState<String, long[]>,
        SupportsCommitter<CommittedLineSink.Part>,
        SupportsPreCommitTopology<CommittedLineSink.Part, CommittedLineSink.Part> {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final String parts;
    private final String run;

    /** The sink of the file `path`, its parts in the directory `parts`, for the run `run` (newRun()). */
    public CommittedLineSink(String path, String parts, String run) {
        this.path = path;
        this.parts = parts;
        this.run = run;
    }

    /**
     * The sink of an output path: exactly once into a file; standard output
     * ("-") or a FIFO cannot take back what they were given, and get
     * LineSink, at least once, as in wmrun.
     */
    public static Sink<String> of(String path, String parts, String run) {
        Path p = Paths.get(path);
        if (path.equals("-") || (Files.exists(p) && !Files.isRegularFile(p))) {
            return new LineSink(path);
        }
        return new CommittedLineSink(path, parts, run);
    }

    /** A run's id: 16 hex digits, as wmrun's committer draws for its parts. */
    public static String newRun() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    /** A sealed part: its file's name in the parts directory, size, writer and number. */
    public static final class Part {
        final String name;
        final long size;
        final int writer;
        final long number;

        Part(String name, long size, int writer, long number) {
            this.name = name;
            this.size = size;
            this.writer = writer;
            this.number = number;
        }
    }

    /** A writer's part `number`: RUN-sWRITER-NUMBER. */
    static String partName(String run, int writer, long number) {
        return run + "-s" + writer + "-" + number;
    }

    @Override
    public Writer createWriter(WriterInitContext context) throws IOException {
        return writer(context.getTaskInfo().getIndexOfThisSubtask(), 0);
    }

    /**
     * A writer restored from a checkpoint numbers its parts on from the
     * state it snapshotted there.
     */
    @Override
    public Writer restoreWriter(WriterInitContext context, Collection<long[]> state) throws IOException {
        int writer = context.getTaskInfo().getIndexOfThisSubtask();
        long next = -1;
        for (long[] s : state) {
            if (s[0] == writer) {
                next = Math.max(next, s[1]);
            }
        }
        if (next < 0) {
            throw new IOException("no part number of writer " + writer + " of " + path + " in the checkpoint");
        }
        return writer(writer, next);
    }

    /**
     * Writer `writer`, its next part `next`, once its parts from that
     * number on are deleted: sealed after the checkpoint restored, or never
     * sealed (a job started again without a checkpoint restores none, and
     * deletes them all).
     */
    private Writer writer(int writer, long next) throws IOException {
        Path dir = Paths.get(parts);
        String prefix = run + "-s" + writer + "-";
        Files.createDirectories(dir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, prefix + "*")) {
            for (Path f : files) {
                String n = f.getFileName().toString().substring(prefix.length());
                if (n.matches("[0-9]{1,18}") && Long.parseLong(n) >= next) {
                    Files.delete(f);
                }
            }
        }
        return new Writer(dir, run, writer, next);
    }

    @Override
    public SimpleVersionedSerializer<long[]> getWriterStateSerializer() {
        return new StateSerializer();
    }

    /**
     * The committer: the file's one (the pre-commit topology sends it every
     * part), Flink's committer subtasks but the first getting none.
     */
    @Override
    public Committer<Part> createCommitter(CommitterInitContext context) {
        return new Appender(path, parts, run);
    }

    @Override
    public SimpleVersionedSerializer<Part> getCommittableSerializer() {
        return new PartSerializer();
    }

    /**
     * Every writer's parts to the first committer subtask, so that one
     * committer appends to the file. A global committer after the
     * committers (SupportsPostCommitTopology) would get a bounded job's
     * last parts only from the committers' notification of the final
     * checkpoint, after their end of data, and Flink 2.3.0 lost them
     * there: the last parts of a finished job were never appended.
     */
    @Override
    public DataStream<CommittableMessage<Part>> addPreCommitTopology(DataStream<CommittableMessage<Part>> written) {
        return written.global();
    }

    @Override
    public SimpleVersionedSerializer<Part> getWriteResultSerializer() {
        return new PartSerializer();
    }

    /** fsync of a directory, so that a name made or removed in it is durable. */
    static void syncDir(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** One writer's parts: lines gathered and written to the open part, which prepareCommit seals. */
    static final class Writer extends LineSink.Gathering
            implements CommittingSinkWriter<String, Part>, StatefulSinkWriter<String, long[]> {
        private final Path dir;
        private final String run;
        private final int writer;
        private long next; /* the number of the part open, or of the next one */
        private FileChannel open; /* null: none since the last seal */
        private long size;

        Writer(Path dir, String run, int writer, long next) {
            this.dir = dir;
            this.run = run;
            this.writer = writer;
            this.next = next;
        }

        @Override
        void out(byte[] lines) throws IOException {
            if (open == null) {
                open = FileChannel.open(dir.resolve(partName(run, writer, next)), StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE);
                size = 0;
            }
            ByteBuffer bytes = ByteBuffer.wrap(lines);
            while (bytes.hasRemaining()) {
                size += open.write(bytes);
            }
        }

        /** At a checkpoint's barrier, and at the end of the input: the open part sealed. */
        @Override
        public Collection<Part> prepareCommit() throws IOException {
            flush(false);
            if (open == null) {
                return List.of();
            }
            open.force(true);
            open.close();
            open = null;
            syncDir(dir);
            Part p = new Part(partName(run, writer, next), size, writer, next);
            next++;
            return List.of(p);
        }

        /** After prepareCommit: the number of the next part, every one before it sealed. */
        @Override
        public List<long[]> snapshotState(long checkpointId) {
            return List.of(new long[] {writer, next});
        }

        /** A part left open by a failure stays: the restored writer deletes it. */
        @Override
        public void close() throws IOException {
            if (open != null) {
                open.close();
            }
        }
    }

    /**
     * The one committer of the file: appends each complete checkpoint's
     * parts, in writer order, through the journal (the class comment).
     */
    static final class Appender implements Committer<Part> {
        private final Path file;
        private final Path dir;
        private final Path journal;

        Appender(String file, String dir, String run) {
            this.file = Paths.get(file);
            this.dir = Paths.get(dir);
            this.journal = this.dir.resolve(run + ".commit");
        }

        @Override
        public void commit(Collection<CommitRequest<Part>> requests) throws IOException {
            List<Part> batch = new ArrayList<>();
            for (CommitRequest<Part> r : requests) {
                batch.add(r.getCommittable());
            }
            batch.sort(Comparator.<Part>comparingInt(p -> p.writer).thenComparingLong(p -> p.number));
            if (Files.exists(journal)) {
                recover();
            }
            int there = 0;
            for (Part p : batch) {
                there += Files.exists(dir.resolve(p.name)) ? 1 : 0;
            }
            if (there == 0) {
                return; /* committed before the restart that gives them again */
            }
            if (there < batch.size()) {
                throw new IOException("parts of " + file + " missing without a journal: cannot tell what was committed");
            }
            long committed = Files.size(file);
            writeJournal(committed, batch);
            append(committed, batch);
        }

        private void writeJournal(long committed, List<Part> batch) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeLong(committed);
                out.writeInt(batch.size());
                for (Part p : batch) {
                    PartSerializer.write(out, p);
                }
            }
            Path tmp = dir.resolve(journal.getFileName() + ".tmp");
            try (FileChannel f = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = ByteBuffer.wrap(bytes.toByteArray());
                while (b.hasRemaining()) {
                    f.write(b);
                }
                f.force(true);
            }
            Files.move(tmp, journal, StandardCopyOption.ATOMIC_MOVE);
            syncDir(dir);
        }

        /** Truncate to the committed length, append the parts, fsync; then delete them and the journal. */
        private void append(long committed, List<Part> batch) throws IOException {
            try (FileChannel f = FileChannel.open(file, StandardOpenOption.WRITE)) {
                f.truncate(committed);
                long at = committed;
                for (Part p : batch) {
                    try (FileChannel in = FileChannel.open(dir.resolve(p.name), StandardOpenOption.READ)) {
                        if (in.size() != p.size) {
                            throw new IOException("part " + p.name + " of " + file + " holds " + in.size()
                                    + " bytes, sealed with " + p.size);
                        }
                        for (long n = 0; n < p.size;) {
                            n += f.transferFrom(in.position(n), at + n, p.size - n);
                        }
                    }
                    at += p.size;
                }
                f.force(true);
            }
            finish(batch);
        }

        private void finish(List<Part> batch) throws IOException {
            for (Part p : batch) {
                Files.deleteIfExists(dir.resolve(p.name));
            }
            syncDir(dir);
            Files.delete(journal);
            syncDir(dir);
        }

        /** The journal of a commit cut short: done again, or its deletes finished. */
        private void recover() throws IOException {
            List<Part> batch = new ArrayList<>();
            long committed;
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(Files.readAllBytes(journal)))) {
                committed = in.readLong();
                for (int n = in.readInt(); n > 0; n--) {
                    batch.add(PartSerializer.read(in));
                }
            }
            long total = committed;
            boolean all = true;
            for (Part p : batch) {
                total += p.size;
                all &= Files.exists(dir.resolve(p.name));
            }
            if (all) {
                append(committed, batch);
                return;
            }
            if (Files.size(file) < total) {
                throw new IOException(file + " is shorter than its journal's commit: cannot recover it");
            }
            finish(batch);
        }

        @Override
        public void close() {}
    }

    /** A part's wire format: version 1, its name, size, writer and number. */
    static final class PartSerializer implements SimpleVersionedSerializer<Part> {
        @Override
        public int getVersion() {
            return 1;
        }

        static void write(DataOutputStream out, Part p) throws IOException {
            out.writeUTF(p.name);
            out.writeLong(p.size);
            out.writeInt(p.writer);
            out.writeLong(p.number);
        }

        static Part read(DataInputStream in) throws IOException {
            return new Part(in.readUTF(), in.readLong(), in.readInt(), in.readLong());
        }

        @Override
        public byte[] serialize(Part p) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                write(out, p);
            }
            return bytes.toByteArray();
        }

        @Override
        public Part deserialize(int version, byte[] data) throws IOException {
            if (version != 1) {
                throw new IOException("unknown part version " + version);
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
                return read(in);
            }
        }
    }

    /** A writer's state: version 1, its index and the number of its next part. */
    static final class StateSerializer implements SimpleVersionedSerializer<long[]> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(long[] s) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeLong(s[0]);
                out.writeLong(s[1]);
            }
            return bytes.toByteArray();
        }

        @Override
        public long[] deserialize(int version, byte[] data) throws IOException {
            if (version != 1) {
                throw new IOException("unknown part writer state version " + version);
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
                return new long[] {in.readLong(), in.readLong()};
            }
        }
    }
}
