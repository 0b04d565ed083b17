package io.fencegate.issuer.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A throwaway redis-server on a free loopback port, without persistence, stopped by its PID. */
final class RedisServerProcess {

    private final int port;
    private final Path dir;
    private final List<String> command;
    private Process process;

    private RedisServerProcess(int port, Path dir, List<String> command) {
        this.port = port;
        this.dir = dir;
        this.command = command;
    }

    static RedisServerProcess start(Path dir, String... extraArgs) throws IOException, InterruptedException {
        int port = freePort();
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", dir.toString(), "--repl-diskless-sync-delay", "0"));
        command.addAll(List.of(extraArgs));
        RedisServerProcess server = new RedisServerProcess(port, dir, command);
        server.startAgain();
        return server;
    }

    /** A Sentinel watching the master on {@code masterPort}. */
    static RedisServerProcess startSentinel(Path dir, int masterPort) throws IOException, InterruptedException {
        int port = freePort();
        Files.createDirectories(dir);
        Path config = dir.resolve("sentinel-" + port + ".conf");
        Files.writeString(config, "port " + port + "\nbind 127.0.0.1\ndaemonize no\ndir " + dir
                + "\nsentinel monitor fencegate-test 127.0.0.1 " + masterPort + " 1\n");
        RedisServerProcess server = new RedisServerProcess(port, dir, List.of("redis-server", config.toString(), "--sentinel"));
        server.startAgain();
        return server;
    }

    int port() {
        return port;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    /** (Re)starts on the same port: a restart without persistence comes back empty. */
    void startAgain() throws IOException, InterruptedException {
        Files.createDirectories(dir);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis-" + port + ".log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!"+PONG".equals(command("PING"))) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                kill();
                throw new IllegalStateException("redis-server on port " + port + " did not start; see " + dir);
            }
            Thread.sleep(20);
        }
    }

    /** SIGKILL, then waits until the process is gone. */
    void kill() throws InterruptedException {
        if (process == null) {
            return;
        }
        long pid = process.pid();
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server " + pid + " did not stop");
        }
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            throw new IllegalStateException("redis-server " + pid + " is still alive");
        }
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** One inline command over a raw socket; answers the first reply line, or null if unreachable. */
    String command(String inline) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
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

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
