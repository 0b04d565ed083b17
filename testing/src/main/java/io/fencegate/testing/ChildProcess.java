package io.fencegate.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process a test or harness started. Its output goes to a log file ({@link Launch#logTo}) or is
 * read line by line as it comes ({@link #lines()}, {@link #awaitLine}). Every wait is bounded.
 * Faults are real signals by PID: SIGKILL, SIGSTOP, SIGCONT. Whatever is still running when the
 * JVM exits is stopped (SIGTERM, then SIGKILL), so no child outlives a test run.
 */
public final class ChildProcess implements AutoCloseable {
    /** How many lines {@link #tail()} shows. */
    public static final int TAIL_LINES = 15;

    private static final Set<ChildProcess> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcess::killAll, "child-process-clean-up"));
    }

    private final String name;
    private final Launch launch;
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private int consumed;
    private Process process;
    private Thread pump;

    private ChildProcess(String name, Launch launch) {
        this.name = name;
        this.launch = launch;
    }

    /** A command as given: {@code command.get(0)} is the program. */
    public static Launch command(String name, List<String> command) {
        return new Launch(name, command);
    }

    /**
     * {@code java <jvmArgs> -cp <classpath> mainClass args}: by default on this JVM's own java and
     * classpath, so the child runs the code the caller was built with.
     */
    public static Launch java(String name, String mainClass, List<String> jvmArgs, List<String> args) {
        Launch launch = new Launch(name, null);
        launch.mainClass = mainClass;
        launch.jvmArgs = List.copyOf(jvmArgs);
        launch.args = List.copyOf(args);
        return launch;
    }

    /** The java launcher of the running JVM. */
    public static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** How a child is started: fluent settings, then {@link #start()}. */
    public static final class Launch {
        private final String name;
        private final List<String> command;
        private String mainClass;
        private List<String> jvmArgs = List.of();
        private List<String> args = List.of();
        private String classpath = System.getProperty("java.class.path");
        private Path directory;
        private Path log;
        private final Map<String, String> env = new java.util.LinkedHashMap<>();
        private final List<String> removeEnvPrefixes = new ArrayList<>();
        private Listener listener;

        private Launch(String name, List<String> command) {
            this.name = name;
            this.command = command == null ? null : List.copyOf(command);
        }

        /** For {@link ChildProcess#java}: another classpath than this JVM's. */
        public Launch classpath(String classpath) {
            this.classpath = classpath;
            return this;
        }

        /** Its working folder (default: this JVM's). */
        public Launch directory(Path directory) {
            this.directory = directory;
            return this;
        }

        /** Appends its output to {@code log} instead of reading it line by line. */
        public Launch logTo(Path log) {
            this.log = log;
            return this;
        }

        /** Also hands every line to {@code listener}, in order, on the thread that reads them. */
        public Launch listener(Listener listener) {
            this.listener = listener;
            return this;
        }

        public Launch env(Map<String, String> env) {
            this.env.putAll(env);
            return this;
        }

        /** Drops the inherited variables whose names start with {@code prefix} (before {@link #env} is added). */
        public Launch withoutEnv(String prefix) {
            removeEnvPrefixes.add(prefix);
            return this;
        }

        public ChildProcess start() throws IOException {
            ChildProcess p = new ChildProcess(name, this);
            p.startAgain();
            return p;
        }

        List<String> commandLine() {
            if (command != null) {
                return command;
            }
            List<String> line = new ArrayList<>(List.of(javaBin()));
            line.addAll(jvmArgs);
            line.addAll(List.of("-cp", classpath, mainClass));
            line.addAll(args);
            return line;
        }
    }

    /** What hears a child's output as it comes (without a log file). */
    public interface Listener {
        void line(String line);

        /** Its output ended: it exited, or closed its output. */
        default void ended() {
        }
    }

    /** Starts the same command again (after a kill: a restart on the same ports and folders). */
    public synchronized void startAgain() throws IOException {
        ProcessBuilder b = new ProcessBuilder(launch.commandLine()).redirectErrorStream(true);
        if (launch.directory != null) {
            b.directory(launch.directory.toFile());
        }
        for (String prefix : launch.removeEnvPrefixes) {
            b.environment().keySet().removeIf(n -> n.startsWith(prefix));
        }
        b.environment().putAll(launch.env);
        if (launch.log != null) {
            Files.createDirectories(launch.log.toAbsolutePath().getParent());
            b.redirectOutput(ProcessBuilder.Redirect.appendTo(launch.log.toFile()));
        }
        process = b.start();
        RUNNING.add(this);
        if (launch.log == null) {
            Process p = process;
            pump = new Thread(() -> pump(p), name + "-output");
            pump.setDaemon(true);
            pump.start();
        }
    }

    private void pump(Process p) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
                if (launch.listener != null) {
                    launch.listener.line(line);
                }
            }
        } catch (IOException ignored) {
            // the process is gone; its exit code tells how
        }
        if (launch.listener != null) {
            launch.listener.ended();
        }
    }

    public String name() {
        return name;
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Its log file, or null when its output is read line by line. */
    public Path log() {
        return launch.log;
    }

    /**
     * The lines it printed so far, live (synchronize on it to iterate). With a log file: read from
     * the file, a copy.
     */
    public List<String> lines() {
        if (launch.log == null) {
            return lines;
        }
        try {
            return Files.exists(launch.log) ? Files.readAllLines(launch.log, StandardCharsets.ISO_8859_1) : List.of();
        } catch (IOException e) {
            return List.of("(unreadable: " + e + ")");
        }
    }

    /** Everything it printed so far. */
    public String output() {
        List<String> all = lines();
        synchronized (all) {
            return String.join("\n", all);
        }
    }

    /**
     * Waits for the next line (after those an earlier call matched or passed) that matches
     * {@code pattern}; fails with the output so far when {@code seconds} pass or it exits first.
     */
    public Matcher awaitLine(Pattern pattern, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            List<String> now = lines();
            boolean exited = !process.isAlive();
            synchronized (now) {
                for (; consumed < now.size(); consumed++) {
                    Matcher m = pattern.matcher(now.get(consumed));
                    if (m.matches()) {
                        consumed++;
                        return m;
                    }
                }
            }
            if (exited && (pump == null || !pump.isAlive())) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " before a line matching "
                        + pattern + ":\n" + output());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no line matching " + pattern + " from " + name + " after " + seconds
                        + " s:\n" + output());
            }
            synchronized (lines) {
                lines.wait(50);
            }
        }
    }

    /** Its last log lines, headed by its name: what a failure message shows. */
    public String tail() {
        List<String> all = lines();
        synchronized (all) {
            return tail(name + (alive() ? "" : " (exited)"), launch.log != null ? launch.log.toString() : "its output",
                    new ArrayList<>(all));
        }
    }

    /** The last {@value #TAIL_LINES} lines of {@code log}, headed by {@code what} and the file. */
    public static String tail(String what, Path log) {
        List<String> lines;
        try {
            lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.ISO_8859_1) : List.of();
        } catch (IOException e) {
            lines = List.of("(unreadable: " + e + ")");
        }
        return tail(what, log.toString(), lines);
    }

    private static String tail(String what, String where, List<String> lines) {
        return "--- " + what + ", last lines of " + where + " ---\n"
                + String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size())) + "\n";
    }

    /** Whether its output says a port it wanted was taken. */
    public boolean bindFailed() {
        return output().contains("Address already in use");
    }

    /** Whether {@code log} says a port was taken. */
    public static boolean bindFailed(Path log) {
        try {
            return Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains("Address already in use");
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs a command to its end (bounded); answers its output, or throws with it if it failed. */
    public static String run(long seconds, List<String> command) throws IOException, InterruptedException {
        // Output to a file, not a pipe: a daemon it starts may hold a pipe open long after it exits.
        Path out = Files.createTempFile("child-cmd", ".out");
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

    /**
     * SIGTERM. Not {@code Process.destroy()}: that also closes our end of the child's output, so
     * whatever it prints while shutting down would be lost.
     */
    public void terminate() {
        process.toHandle().destroy();
    }

    /** SIGKILL, and waits until it is gone: no shutdown hook, no goodbye to anyone. */
    public void kill9() throws InterruptedException {
        long pid = process.pid();
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " (" + pid + ") still alive 10 s after SIGKILL");
        }
        RUNNING.remove(this);
    }

    /** SIGSTOP: a real stop-the-world pause, every thread of it. */
    public void stop() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT. */
    public void cont() throws IOException, InterruptedException {
        signal("CONT");
    }

    /** Sends a signal by name ({@code STOP}, {@code CONT}, ...) to it. */
    public void signal(String sig) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + sig + " " + process.pid() + " (" + name + ") failed");
        }
    }

    /**
     * Waits for it to end by itself; answers its exit code once every line it printed has been
     * read. Throws with its output if it still runs after {@code seconds}.
     */
    public int await(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " still running after " + seconds + " s\n" + tail());
        }
        if (pump != null) {
            pump.join(10_000);
        }
        RUNNING.remove(this);
        return process.exitValue();
    }

    /** SIGCONT (a stopped process ignores SIGTERM), SIGTERM, and SIGKILL if it is not gone in 30 s. */
    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            signal("CONT");
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill9();
            }
        }
        RUNNING.remove(this);
    }

    /** At JVM exit: SIGCONT and SIGTERM to every child still running, SIGKILL to those not gone within 5 s. */
    private static void killAll() {
        List<ChildProcess> alive = RUNNING.stream().filter(p -> p.process.isAlive()).toList();
        for (ChildProcess p : alive) {
            try {
                p.signal("CONT"); // a stopped process ignores SIGTERM until continued
            } catch (IOException | InterruptedException | IllegalStateException e) {
                // SIGKILL below ends it anyway
            }
            p.process.destroy();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (ChildProcess p : alive) {
            try {
                p.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            p.process.destroyForcibly();
        }
    }

    /**
     * A port that is free now, drawn at random below Linux's ephemeral range (32768 and up): port 0
     * would hand out one from that range, where every outgoing connection on the machine may take
     * it before the server binds it. Whoever binds it still checks for "Address already in use".
     */
    public static int freePort() throws IOException {
        for (int i = 0; i < 200; i++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 32_000);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free port between 20000 and 32000 after 200 tries");
    }
}
