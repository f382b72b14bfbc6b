import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs exported Flink jobs in one JVM, at most N at a time: each job is a
 * class whose main(DATA, OUT) builds its job and runs it on a MiniCluster
 * of its own (getExecutionEnvironment outside a cluster), as `java
 * wmrun.flink.Job DATA OUT` would, without a JVM's start and warm-up per
 * job. Prints one line per job, "CLASS: ok MS" or "CLASS: failed: WHY";
 * exits 1 if any failed.
 *
 *   java FlinkJobs N CLASS DATA OUT [CLASS DATA OUT]...
 */
public final class FlinkJobs {
    private FlinkJobs() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || (args.length - 1) % 3 != 0) {
            System.err.println("usage: java FlinkJobs N CLASS DATA OUT [CLASS DATA OUT]...");
            System.exit(64);
        }
        ExecutorService pool = Executors.newFixedThreadPool(Integer.parseInt(args[0]));
        List<String> names = new ArrayList<>();
        List<Future<Long>> runs = new ArrayList<>();
        for (int i = 1; i < args.length; i += 3) {
            String job = args[i];
            String[] jobArgs = {args[i + 1], args[i + 2]};
            names.add(job);
            runs.add(pool.submit(() -> {
                long began = System.nanoTime();
                Class.forName(job).getMethod("main", String[].class).invoke(null, (Object) jobArgs);
                return (System.nanoTime() - began) / 1_000_000;
            }));
        }
        boolean failed = false;
        for (int i = 0; i < runs.size(); i++) {
            try {
                System.out.println(names.get(i) + ": ok " + runs.get(i).get());
            } catch (Exception e) {
                Throwable cause = e;
                while (cause.getCause() != null) {
                    cause = cause.getCause();
                }
                System.out.println(names.get(i) + ": failed: " + cause);
                failed = true;
            }
        }
        pool.shutdown();
        System.exit(failed ? 1 : 0);
    }
}
