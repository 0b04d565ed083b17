package io.fencegate.gateway.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code fencegate ...} as a child JVM on this test's classpath: its output lines are collected,
 * {@link #awaitReady} waits for the "listening" line and takes the port from it.
 */
final class GatewayProcess implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("fencegate listening on https?://[^:]+:(\\d+) .*");

    final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final CompletableFuture<Void> pumped;
    private int port;

    private GatewayProcess(Process process) {
        this.process = process;
        this.pumped = CompletableFuture.runAsync(() -> pump(process), r -> {
            Thread t = new Thread(r, "gateway-process-output");
            t.setDaemon(true);
            t.start();
        });
    }

    static GatewayProcess start(Path workDir, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                "io.fencegate.gateway.cli.Main"));
        command.addAll(List.of(args));
        return new GatewayProcess(new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start());
    }

    /**
     * {@code <repo>/fencegate ...}: README's command, the launcher script and the runtime classpath
     * it builds ({@code target/classpath.txt}), not this test's classpath. {@code FENCEGATE_NO_BUILD}
     * keeps it from running Maven inside this Maven build, which has just built the classes.
     */
    static GatewayProcess launch(Path workDir, Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(repoRoot().resolve("fencegate").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("FENCEGATE_"));
        builder.environment().put("FENCEGATE_NO_BUILD", "1");
        builder.environment().putAll(env);
        return new GatewayProcess(builder.start());
    }

    /** The checkout's root: the nearest folder up from here that holds the launcher. */
    static Path repoRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("fencegate")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no ./fencegate launcher above " + Path.of("").toAbsolutePath());
    }

    private void pump(Process p) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                lines.add(line);
            }
        } catch (IOException ignored) {
            // the process is gone; exit() tells how
        }
    }

    /** Waits for the "listening" line; fails with everything printed so far if the process exits first. */
    GatewayProcess awaitReady(long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line == null) {
                if (!process.isAlive() && lines.isEmpty()) {
                    throw new IllegalStateException("gateway exited with " + process.exitValue() + ": " + seen);
                }
                continue;
            }
            seen.add(line);
            Matcher m = READY.matcher(line);
            if (m.matches()) {
                port = Integer.parseInt(m.group(1));
                return this;
            }
        }
        throw new IllegalStateException("gateway not ready after " + seconds + " s: " + seen);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + port + "/");
    }

    /**
     * Sends SIGTERM. Not {@code Process.destroy()}: that also closes our end of the child's output,
     * so whatever it prints while shutting down would be lost.
     */
    void terminate() {
        process.toHandle().destroy();
    }

    /** SIGKILL: no shutdown hook, no drain, no goodbye to ZooKeeper. */
    void kill() {
        process.toHandle().destroyForcibly();
    }

    /** Waits for the process to end; answers its exit code. Everything it printed is in {@link #output()}. */
    int exit(long seconds) throws Exception {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("gateway still running after " + seconds + " s: " + output());
        }
        pumped.get(10, TimeUnit.SECONDS); // every line the process printed has been read
        return process.exitValue();
    }

    String output() {
        List<String> all = new ArrayList<>(seen);
        lines.drainTo(all);
        seen.clear();
        seen.addAll(all);
        return String.join("\n", all);
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
