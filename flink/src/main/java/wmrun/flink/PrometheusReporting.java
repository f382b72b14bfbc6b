package wmrun.flink;

import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;

/**
 * Flink's Prometheus reporter for a job run on the local MiniCluster, so
 * that its metrics can be scraped and set beside wmrun's endpoint (wmrun
 * --prometheus): `mvn exec:exec -Dwmrun.prometheus=PORT` (the pom's
 * profile of that property puts flink-metrics-prometheus on the class
 * path and passes the property to the job's JVM). Flink's reporter
 * listens on PORT of every address (it has no option for one address) and
 * serves GET /metrics.
 *
 * Without the property (the default, and under `flink run`, where the
 * cluster's configuration chooses its reporters) the configuration is left
 * as it is.
 */
public final class PrometheusReporting {
    /** The system property that names the port (empty: no reporter). */
    public static final String PORT_PROPERTY = "wmrun.prometheus";

    private PrometheusReporting() {}

    /** Adds the reporter "prom" to conf when PORT_PROPERTY is set. */
    public static void configure(Configuration conf) {
        String port = System.getProperty(PORT_PROPERTY, "").trim();
        if (port.isEmpty()) {
            return;
        }
        set(conf, "metrics.reporter.prom.factory.class",
                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        set(conf, "metrics.reporter.prom.port", port);
    }

    private static void set(Configuration conf, String key, String value) {
        conf.set(ConfigOptions.key(key).stringType().noDefaultValue(), value);
    }
}
