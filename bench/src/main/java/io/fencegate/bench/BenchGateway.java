package io.fencegate.bench;

import io.fencegate.testing.GatewayProcess;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code fencegate serve --config …} as a child process on this JVM's classpath, as a user runs it;
 * {@code BENCH_GATEWAY_JAVA_OPTS} (space-separated) adds JVM flags, e.g. to log its GC or JIT.
 */
final class BenchGateway {
    private BenchGateway() {
    }

    /** Started and serving (its port taken from its "listening" line), or a failure with what it printed. */
    static GatewayProcess start(Path config, Path workDir) throws Exception {
        List<String> flags = GatewayProcess.withFlags(List.of("-Xmx512m"), System.getenv("BENCH_GATEWAY_JAVA_OPTS"));
        return GatewayProcess.java(workDir, flags, "serve", "--config", config.toString(), "--port", "0").awaitReady(90);
    }
}
