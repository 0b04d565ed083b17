package io.fencegate.check.nemesis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A process the harness started, its output in a log file. Faults are real signals: SIGKILL,
 * SIGSTOP and SIGCONT by PID.
 */
final class ChildProcess implements AutoCloseable {
    private final String name;
    private final List<String> command;
    private final Path log;
    private final Map<String, String> env;
    private Process process;

    private ChildProcess(String name, List<String> command, Path log, Map<String, String> env) {
        this.name = name;
        this.command = command;
        this.log = log;
        this.env = env;
    }

    /** A JVM running {@code mainClass} on the harness's own classpath. */
    static ChildProcess java(String name, Path logDir, String mainClass, List<String> jvmArgs, List<String> args) throws IOException {
        return java(name, logDir, mainClass, jvmArgs, args, Map.of());
    }

    /** The same, with {@code env} added to its environment. */
    static ChildProcess java(String name, Path logDir, String mainClass, List<String> jvmArgs, List<String> args,
            Map<String, String> env) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k"));
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return start(name, logDir, command, env);
    }

    static ChildProcess start(String name, Path logDir, List<String> command) throws IOException {
        return start(name, logDir, command, Map.of());
    }

    private static ChildProcess start(String name, Path logDir, List<String> command, Map<String, String> env) throws IOException {
        Files.createDirectories(logDir);
        ChildProcess p = new ChildProcess(name, command, logDir.resolve(name + ".log"), env);
        p.startAgain();
        return p;
    }

    void startAgain() throws IOException {
        ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        b.environment().putAll(env);
        process = b.start();
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

    /** Its last log lines, headed by its name and log file: what a failure message shows. */
    String tail() {
        return tail(name + (alive() ? "" : " (exited)"), log);
    }

    /** The last {@value #TAIL_LINES} lines of {@code log}, headed by {@code what} and the file. */
    static String tail(String what, Path log) {
        List<String> lines;
        try {
            lines = Files.exists(log) ? Files.readAllLines(log, java.nio.charset.StandardCharsets.ISO_8859_1) : List.of();
        } catch (IOException e) {
            lines = List.of("(unreadable: " + e + ")");
        }
        return "--- " + what + ", last lines of " + log + " ---\n"
                + String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size())) + "\n";
    }

    static final int TAIL_LINES = 15;

    /** Whether its log says a port it wanted was taken. */
    boolean bindFailed() {
        return bindFailed(log);
    }

    static boolean bindFailed(Path log) {
        try {
            return Files.exists(log) && Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1).contains("Address already in use");
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs a command to its end (bounded); answers its output, or throws with it if it failed. */
    static String run(long seconds, List<String> command) throws IOException, InterruptedException {
        // Output to a file, not a pipe: a daemon it starts may hold a pipe open long after it exits.
        Path out = Files.createTempFile("nemesis-cmd", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " still running after " + seconds + " s:\n"
                        + Files.readString(out));
            }
            String text = Files.readString(out);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited with " + p.exitValue() + ":\n" + text);
            }
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
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
            throw new IllegalStateException(name + " still running after " + seconds + " s\n" + tail());
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

    /**
     * A port that is free now, drawn at random below Linux's ephemeral range (32768 and up): port 0
     * would hand out one from that range, where every outgoing connection on the machine may take
     * it before the server binds it. Whoever binds it still checks for "Address already in use".
     */
    static int freePort() throws IOException {
        for (int i = 0; i < 200; i++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 32_000);
            try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free port between 20000 and 32000 after 200 tries");
    }
}
