package wmrun.flink;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Lines into one file shared by every subtask, or standard output ("-"),
 * as wmrun's sinks write them: the job writes the header once, before it
 * runs (header()), and each writer appends whole lines. A writer gathers
 * lines and appends them in one write per flush, and appends by one write
 * to a file opened for appending do not interleave, so lines never mix;
 * on standard output a lock does the same within the JVM. On a cluster the
 * path is on each task manager's file system.
 */
public final class LineSink implements Sink<String> {
    private static final long serialVersionUID = 1L;

    private final String path;

    public LineSink(String path) {
        this.path = path;
    }

    /** Start the output: truncate the file and write the header (none if null). */
    public static void header(String path, String header) throws IOException {
        String text = header == null ? "" : header + "\n";
        if (path.equals("-")) {
            synchronized (System.out) {
                System.out.print(text);
                System.out.flush();
            }
            return;
        }
        Path p = Paths.get(path);
        if (p.getParent() != null) {
            Files.createDirectories(p.getParent());
        }
        Files.write(p, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) throws IOException {
        return new Writer(path);
    }

    /**
     * A writer that gathers lines and writes them in one write per flush,
     * at 4 KiB or when Flink flushes (at a checkpoint, at the end): one
     * write of whole lines is what keeps writers' lines from mixing.
     */
    abstract static class Gathering implements SinkWriter<String> {
        private final StringBuilder pending = new StringBuilder();

        /** Write the lines gathered, whole, in one write. */
        abstract void out(byte[] lines) throws IOException;

        @Override
        public abstract void close() throws IOException;

        @Override
        public void write(String line, Context context) throws IOException {
            pending.append(line).append('\n');
            if (pending.length() >= 4096) {
                flush(false);
            }
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
            if (pending.length() == 0) {
                return;
            }
            byte[] bytes = pending.toString().getBytes(StandardCharsets.UTF_8);
            pending.setLength(0);
            out(bytes);
        }
    }

    static final class Writer extends Gathering {
        private final OutputStream file; /* null: standard output */

        Writer(String path) throws IOException {
            file = path.equals("-") ? null
                    : Files.newOutputStream(Paths.get(path), StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
        }

        @Override
        void out(byte[] bytes) throws IOException {
            if (file == null) {
                synchronized (System.out) {
                    System.out.write(bytes, 0, bytes.length);
                    System.out.flush();
                }
            } else {
                file.write(bytes);
                file.flush();
            }
        }

        @Override
        public void close() throws IOException {
            flush(true);
            if (file != null) {
                file.close();
            }
        }
    }
}
