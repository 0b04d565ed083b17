package io.fencegate.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code fencegate serve} (or any {@code fencegate} command) as a child process, as a user runs it:
 * {@link #java} on a classpath (this JVM's by default), {@link #command} for a launcher script.
 * {@link #awaitReady} waits for the one line a serving gateway prints, {@code fencegate listening
 * on http://HOST:PORT (...)}, and takes the port from it. This module knows the gateway only by
 * that line and its main class's name.
 */
public final class GatewayProcess implements AutoCloseable {
    /** The gateway's command-line entry point. */
    public static final String MAIN_CLASS = "io.fencegate.gateway.cli.Main";

    /** The line {@code fencegate serve} prints once it accepts connections. */
    public static final Pattern READY = Pattern.compile("fencegate listening on (https?)://([^: ]+):(\\d+)( .*)?");

    private final ChildProcess child;
    private String scheme;
    private int port;

    private GatewayProcess(ChildProcess child) {
        this.child = child;
    }

    /** {@code java <jvmArgs> -cp <this JVM's classpath> io.fencegate.gateway.cli.Main args} in {@code workDir}. */
    public static GatewayProcess java(Path workDir, List<String> jvmArgs, String... args) throws IOException {
        return of(ChildProcess.java("gateway", MAIN_CLASS, jvmArgs, List.of(args)).directory(workDir));
    }

    /** A gateway on the light JVM flags tests use: C1 only, 256 MB heap. */
    public static GatewayProcess start(Path workDir, String... args) throws IOException {
        return java(workDir, List.of("-XX:TieredStopAtLevel=1", "-Xmx256m"), args);
    }

    /**
     * {@code command} (a launcher script and its arguments) in {@code workDir}, with the inherited
     * {@code FENCEGATE_*} variables dropped and {@code env} added, so only what the caller says
     * configures it.
     */
    public static GatewayProcess command(Path workDir, Map<String, String> env, List<String> command) throws IOException {
        return of(ChildProcess.command("gateway", command).directory(workDir).withoutEnv("FENCEGATE_").env(env));
    }

    /** A gateway started the way {@code launch} says. */
    public static GatewayProcess of(ChildProcess.Launch launch) throws IOException {
        return new GatewayProcess(launch.start());
    }

    /** The port in a "listening" line, or -1 if {@code line} is not one. */
    public static int portOf(String line) {
        Matcher m = READY.matcher(line);
        return m.matches() ? Integer.parseInt(m.group(3)) : -1;
    }

    /** Waits for the "listening" line; fails with everything printed so far if it exits first or time runs out. */
    public GatewayProcess awaitReady(long seconds) throws InterruptedException {
        Matcher m = child.awaitLine(READY, seconds);
        scheme = m.group(1);
        port = Integer.parseInt(m.group(3));
        return this;
    }

    /** Its base URL on loopback, {@code http://127.0.0.1:PORT/}; after {@link #awaitReady}. */
    public URI uri() {
        if (port == 0) {
            throw new IllegalStateException("not ready yet: call awaitReady first");
        }
        return URI.create(scheme + "://127.0.0.1:" + port + "/");
    }

    public int port() {
        return port;
    }

    public long pid() {
        return child.pid();
    }

    public ChildProcess child() {
        return child;
    }

    /** SIGTERM: it drains and closes its sessions; what it prints meanwhile is still read. */
    public void terminate() {
        child.terminate();
    }

    /** SIGKILL: no shutdown hook, no drain, no goodbye to ZooKeeper. */
    public void kill() throws InterruptedException {
        child.kill9();
    }

    /** Waits for it to end; answers its exit code. Everything it printed is in {@link #output()}. */
    public int exit(long seconds) throws InterruptedException {
        return child.await(seconds);
    }

    public String output() {
        return child.output();
    }

    @Override
    public void close() throws Exception {
        child.close();
    }

    /** The gateway's JVM flags plus {@code extra} split at spaces (e.g. an environment variable's value; null: none). */
    public static List<String> withFlags(List<String> flags, String extra) {
        List<String> all = new ArrayList<>(flags);
        if (extra != null && !extra.isBlank()) {
            all.addAll(List.of(extra.trim().split("\\s+")));
        }
        return all;
    }
}
