package io.fencegate.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code fencegate serve --config …} as a child process on this JVM's classpath, as a user runs it;
 * {@code BENCH_GATEWAY_JAVA_OPTS} (space-separated) adds JVM flags, e.g. to log its GC or JIT.
 */
final class GatewayProcess implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("fencegate listening on http://127\\.0\\.0\\.1:(\\d+).*");

    private final Process process;
    final URI uri;
    final int port;

    private GatewayProcess(Process process, int port) {
        this.process = process;
        this.port = port;
        this.uri = URI.create("http://127.0.0.1:" + port + "/");
    }

    static GatewayProcess start(Path config, Path workDir) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m"));
        String extra = System.getenv("BENCH_GATEWAY_JAVA_OPTS");
        if (extra != null && !extra.isBlank()) {
            command.addAll(List.of(extra.trim().split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "io.fencegate.gateway.cli.Main", "serve", "--config", config.toString(), "--port", "0"));
        Process process = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.PIPE).start();
        return new GatewayProcess(process, awaitPort(process));
    }

    /** Reads until the "listening" line, then drains the rest in the background so it never blocks. */
    private static int awaitPort(Process process) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        for (String line; System.nanoTime() < deadline && (line = out.readLine()) != null; ) {
            seen.add(line);
            Matcher m = READY.matcher(line);
            if (m.matches()) {
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // discard: the gateway logs one line per significant event
                        }
                    } catch (IOException ignored) {
                        // the gateway is gone
                    }
                }, "bench-gateway-output");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("the gateway did not start:\n" + String.join("\n", seen));
    }

    /** The child's process id (for its memory: jcmd, /proc). */
    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
