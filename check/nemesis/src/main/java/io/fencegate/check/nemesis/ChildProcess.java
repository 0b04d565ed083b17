package io.fencegate.check.nemesis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A process the harness started, its output in a log file. Faults are real signals: SIGKILL,
 * SIGSTOP and SIGCONT by PID.
 */
final class ChildProcess implements AutoCloseable {
    private final String name;
    private final List<String> command;
    private final Path log;
    private Process process;

    private ChildProcess(String name, List<String> command, Path log) {
        this.name = name;
        this.command = command;
        this.log = log;
    }

    /** A JVM running {@code mainClass} on the harness's own classpath. */
    static ChildProcess java(String name, Path logDir, String mainClass, List<String> jvmArgs, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k"));
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return start(name, logDir, command);
    }

    static ChildProcess start(String name, Path logDir, List<String> command) throws IOException {
        Files.createDirectories(logDir);
        ChildProcess p = new ChildProcess(name, command, logDir.resolve(name + ".log"));
        p.startAgain();
        return p;
    }

    void startAgain() throws IOException {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    Path log() {
        return log;
    }

    String output() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** SIGKILL, and waits until it is gone. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    void stop() throws IOException, InterruptedException {
        signal("STOP");
    }

    void cont() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String sig) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + sig + " " + process.pid() + " (" + name + ") failed");
        }
    }

    /** Waits for the process to end by itself; answers its exit code. */
    int await(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " still running after " + seconds + " s; see " + log);
        }
        return process.exitValue();
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            signal("CONT"); // a stopped process ignores SIGTERM until continued
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                kill9();
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
