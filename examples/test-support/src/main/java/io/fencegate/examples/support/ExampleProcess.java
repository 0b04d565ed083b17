package io.fencegate.examples.support;

import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.GatewayProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An example run as a user runs it: a child process and its output lines, read as they come.
 * {@link #gateway} starts {@code fencegate serve} on its embedded default (port 0, data in a temp
 * folder) on the calling test's classpath, which must hold {@code fencegate-gateway}.
 */
public final class ExampleProcess implements AutoCloseable {
    private static final List<String> JVM_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-Xmx256m");

    public final Process process;
    /** Every line it printed so far, live (synchronize on it to iterate). */
    public final List<String> seen;
    private final ChildProcess child;
    private final AutoCloseable owner;
    private final Path work;
    /** The gateway's base URL, for {@link #gateway}. */
    public String url;

    private ExampleProcess(ChildProcess child, AutoCloseable owner, Path work) {
        this.child = child;
        this.owner = owner;
        this.process = child.process();
        this.seen = child.lines();
        this.work = work;
    }

    public static ExampleProcess gateway() throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "gateway");
        GatewayProcess gateway = GatewayProcess.java(work, JVM_FLAGS, "serve", "--port", "0", "--data", "data");
        ExampleProcess gw = new ExampleProcess(gateway.child(), gateway, work);
        gw.url = gateway.awaitReady(90).uri().toString().replaceAll("/$", "");
        return gw;
    }

    /** {@code java -cp <this test's classpath> mainClass args...}, as a user runs the example. */
    public static ExampleProcess program(String mainClass, String... args) throws IOException {
        ChildProcess child = ChildProcess.java(mainClass, mainClass, JVM_FLAGS, List.of(args))
                .directory(Path.of("").toAbsolutePath()).start();
        return new ExampleProcess(child, child, null);
    }

    /** A command run in the current folder (the module's, under Maven). */
    public static ExampleProcess command(String... command) throws IOException {
        ChildProcess child = ChildProcess.command(command[0], List.of(command)).directory(Path.of("").toAbsolutePath()).start();
        return new ExampleProcess(child, child, null);
    }

    /** Waits for the next line matching {@code pattern}; fails with the output so far after {@code seconds}. */
    public Matcher awaitLine(Pattern pattern, long seconds) throws InterruptedException {
        return child.awaitLine(pattern, seconds);
    }

    /** Sends a signal by name (STOP, CONT) to the process. */
    public void signal(String name) throws Exception {
        child.signal(name);
    }

    public int awaitExit(long seconds) throws InterruptedException {
        return child.await(seconds);
    }

    @Override
    public void close() throws Exception {
        owner.close();
        if (work != null) {
            try (var all = Files.walk(work)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
