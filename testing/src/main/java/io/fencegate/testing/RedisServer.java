package io.fencegate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of a test's own (never the shared one on 6379) on a free loopback port, its log and
 * data in {@code dir}. {@link #start} runs without persistence, so a restart comes back empty;
 * {@link #startWithAof} keeps an AOF ({@code everysec}: a kill -9 loses at most the last second) and
 * RDB snapshots aside to restart from an older one. Stopped by its PID.
 */
public final class RedisServer implements AutoCloseable {
    private static final int BIND_TRIES = 5;

    private final Path dir;
    private final int port;
    private final List<String> args;
    private final Map<String, String> env;
    private ChildProcess process;

    private RedisServer(Path dir, int port, List<String> args, Map<String, String> env) {
        this.dir = dir;
        this.port = port;
        this.args = args;
        this.env = env;
    }

    /** No persistence; {@code extraArgs} go last (e.g. {@code --replicaof 127.0.0.1 PORT}). */
    public static RedisServer start(Path dir, String... extraArgs) throws IOException, InterruptedException {
        return start(dir, Map.of(), extraArgs);
    }

    /**
     * No persistence, the server's environment extended by {@code env} (e.g. a
     * {@link SteppedWallClock}'s); {@code extraArgs} go last.
     */
    public static RedisServer start(Path dir, Map<String, String> env, String... extraArgs) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"));
        args.addAll(List.of(extraArgs));
        return startOnFreePort(dir, env, port -> args);
    }

    /** With AOF on ({@code everysec}) and RDB snapshots by {@link #snapshot()} only. */
    public static RedisServer startWithAof(Path dir) throws IOException, InterruptedException {
        return startWithAof(dir, Map.of());
    }

    /** With AOF on, the server's environment extended by {@code env} (e.g. a {@link SteppedWallClock}'s), restarts too. */
    public static RedisServer startWithAof(Path dir, Map<String, String> env) throws IOException, InterruptedException {
        return startOnFreePort(dir, env, port -> aofArgs(true));
    }

    /** A Sentinel watching the master on {@code masterPort} under the name {@code fencegate-test}. */
    public static RedisServer startSentinel(Path dir, int masterPort) throws IOException, InterruptedException {
        return startOnFreePort(dir, Map.of(), port -> {
            Path config = dir.resolve("sentinel-" + port + ".conf");
            Files.writeString(config, "port " + port + "\nbind 127.0.0.1\ndaemonize no\ndir " + dir
                    + "\nsentinel monitor fencegate-test 127.0.0.1 " + masterPort + " 1\n");
            return List.of(config.toString(), "--sentinel");
        });
    }

    private interface Args {
        List<String> forPort(int port) throws IOException;
    }

    private static RedisServer startOnFreePort(Path dir, Map<String, String> env, Args args)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        for (int attempt = 1; ; attempt++) {
            int port = ChildProcess.freePort();
            RedisServer r = new RedisServer(dir, port, args.forPort(port), env);
            try {
                r.startAgain();
                return r;
            } catch (IllegalStateException e) {
                if (attempt == BIND_TRIES || r.process == null || !r.process.bindFailed()) {
                    throw e;
                }
            }
        }
    }

    private static List<String> aofArgs(boolean appendOnly) {
        return List.of("--save", "", "--appendonly", appendOnly ? "yes" : "no", "--appendfsync", "everysec",
                "--dbfilename", "dump.rdb");
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.alive();
    }

    /** (Re)starts on the same port and folder, with the arguments it was started with. */
    public void startAgain() throws IOException, InterruptedException {
        launch(args);
    }

    private void launch(List<String> serverArgs) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("redis-server"));
        boolean sentinel = serverArgs.contains("--sentinel");
        if (!sentinel) {
            cmd.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--daemonize", "no",
                    "--dir", dir.toString()));
        }
        cmd.addAll(serverArgs);
        process = ChildProcess.command("redis-" + port, cmd).env(env).logTo(dir.resolve("redis-" + port + ".log")).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        // Its own answer, not a PONG from another server that held the port (this one then exits), and
        // only once it has loaded its data.
        while (!answersAsPid(process.pid(), !sentinel)) {
            if (System.nanoTime() > deadline || !process.alive()) {
                String tail = process.tail();
                kill();
                throw new IllegalStateException("redis-server on port " + port + " did not start\n" + tail);
            }
            Thread.sleep(20);
        }
    }

    /**
     * Whether the server on {@link #port} says it is process {@code pid} and has its data loaded
     * ({@code INFO}: {@code process_id}, then {@code loading:0}); a server still reading its AOF or
     * snapshot answers every command with {@code -LOADING}. A sentinel keeps no data (and reports no
     * {@code loading}): its pid is enough.
     */
    private boolean answersAsPid(long pid, boolean hasData) {
        try (Socket socket = new Socket()) {
            socket.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            socket.setSoTimeout(2000);
            socket.getOutputStream().write("INFO\r\n".getBytes(StandardCharsets.UTF_8));
            java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            boolean ours = false;
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("process_id:")) {
                    ours = line.substring("process_id:".length()).trim().equals(Long.toString(pid));
                    if (!ours || !hasData) {
                        return ours;
                    }
                } else if (line.startsWith("loading:")) {
                    return ours && line.substring("loading:".length()).trim().equals("0");
                }
            }
            return false;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** SIGKILL, then waits until the process is gone. */
    public void kill() throws InterruptedException {
        if (process == null) {
            return;
        }
        long pid = process.pid();
        process.kill9();
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            throw new IllegalStateException("redis-server " + pid + " is still alive");
        }
    }

    /** SAVE, and keeps the snapshot aside as the "older" one a rollback restarts from. */
    public void snapshot() throws IOException {
        expectOk(command("SAVE"), "SAVE");
        Files.copy(dir.resolve("dump.rdb"), dir.resolve("older.rdb"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** kill -9, then restart from the older snapshot (its AOF thrown away), then AOF on again. */
    public void rollbackToSnapshot() throws IOException, InterruptedException {
        kill();
        Folders.deleteTree(dir.resolve("appendonlydir"));
        Files.copy(dir.resolve("older.rdb"), dir.resolve("dump.rdb"), StandardCopyOption.REPLACE_EXISTING);
        launch(aofArgs(false));
        expectOk(command("CONFIG SET appendonly yes"), "CONFIG SET appendonly yes");
    }

    /** kill -9, then restart from the AOF. */
    public void kill9AndRestartFromAof() throws IOException, InterruptedException {
        kill();
        launch(aofArgs(true));
    }

    public void flushAll() throws IOException {
        expectOk(command("FLUSHALL"), "FLUSHALL");
    }

    private static void expectOk(String reply, String what) throws IOException {
        if (!"+OK".equals(reply)) {
            throw new IOException(what + " answered " + reply);
        }
    }

    /** One inline command over a raw socket (2 s timeout); answers the first reply line, or null if unreachable. */
    public String command(String inline) {
        try (Socket socket = new Socket()) {
            socket.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write((inline + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        } catch (IOException e) {
            return null;
        }
    }

    /** The last lines of its log, for a failure message. */
    public String tail() {
        return process != null ? process.tail() : "";
    }

    @Override
    public void close() throws Exception {
        kill();
    }
}
