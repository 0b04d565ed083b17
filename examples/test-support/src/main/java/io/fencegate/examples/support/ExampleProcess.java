package io.fencegate.examples.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An example run as a user runs it: a child process and its output lines, read as they come.
 * {@link #gateway} starts {@code fencegate serve} on its embedded default (port 0, data in a temp
 * folder) on the calling test's classpath, which must hold {@code fencegate-gateway}.
 */
public final class ExampleProcess implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("fencegate listening on (http://127\\.0\\.0\\.1:\\d+) .*");

    public final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    public final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    private final Path work;
    /** The gateway's base URL, for {@link #gateway}. */
    public String url;

    private ExampleProcess(Process process, Path work) {
        this.process = process;
        this.work = work;
        Thread pump = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    seen.add(line);
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process is gone
            }
        }, "child-output");
        pump.setDaemon(true);
        pump.start();
    }

    public static ExampleProcess gateway() throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "gateway");
        ExampleProcess gw = new ExampleProcess(java(work, "io.fencegate.gateway.cli.Main", "serve", "--port", "0", "--data", "data"), work);
        gw.url = gw.awaitLine(READY, 90).group(1);
        return gw;
    }

    /** {@code java -cp <this test's classpath> mainClass args...}, as a user runs the example. */
    public static ExampleProcess program(String mainClass, String... args) throws IOException {
        return new ExampleProcess(java(Path.of("").toAbsolutePath(), mainClass, args), null);
    }

    /** A command run in the current folder (the module's, under Maven). */
    public static ExampleProcess command(String... command) throws IOException {
        return new ExampleProcess(new ProcessBuilder(command).directory(Path.of("").toAbsolutePath().toFile())
                .redirectErrorStream(true).start(), null);
    }

    private static Process java(Path dir, String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    }

    /** Waits for a line matching {@code pattern}; fails with the output so far after {@code seconds}. */
    public Matcher awaitLine(Pattern pattern, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(50, TimeUnit.MILLISECONDS);
            if (line != null) {
                Matcher m = pattern.matcher(line);
                if (m.matches()) {
                    return m;
                }
            } else if (!process.isAlive() && lines.isEmpty()) {
                break;
            }
        }
        throw new AssertionError("no line matching " + pattern + " in: " + seen);
    }

    /** Sends a signal by name (STOP, CONT) to the process. */
    public void signal(String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + name + " failed");
        }
    }

    public int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("still running after " + seconds + " s: " + seen);
        }
        return process.exitValue();
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        if (work != null) {
            try (var all = Files.walk(work)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
