package io.fencegate.check.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The harness's own redis-server (never the shared one on 6379), with AOF ({@code everysec}) so a
 * kill -9 loses at most the last second, and RDB snapshots kept aside to restart from an older one.
 */
final class RedisServer implements AutoCloseable {
    private final Path dir;
    private int port;
    private ChildProcess process;

    private RedisServer(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    static RedisServer start(Path dir) throws Exception {
        Files.createDirectories(dir);
        for (int attempt = 1; ; attempt++) {
            RedisServer r = new RedisServer(dir, ChildProcess.freePort());
            try {
                r.launch(true);
                return r;
            } catch (IllegalStateException e) {
                r.close();
                if (attempt == 5 || !r.process.bindFailed()) {
                    throw e;
                }
                System.err.println("nemesis: redis port " + r.port + " was taken; another");
            }
        }
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    private void launch(boolean appendOnly) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", appendOnly ? "yes" : "no", "--appendfsync", "everysec",
                "--dir", dir.toString(), "--dbfilename", "dump.rdb", "--daemonize", "no"));
        process = ChildProcess.start("redis", dir, cmd);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!cli("PING").contains("PONG")) {
            if (System.nanoTime() > deadline || !process.alive()) {
                throw new IllegalStateException("redis-server on " + port + " did not start\n" + process.tail());
            }
            Thread.sleep(50);
        }
    }

    /** SAVE, and keeps the snapshot aside as the "older" one a rollback restarts from. */
    void snapshot() throws Exception {
        cli("SAVE");
        Files.copy(dir.resolve("dump.rdb"), dir.resolve("older.rdb"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** kill -9, then restart from the older snapshot (its AOF thrown away), then AOF on again. */
    void rollbackToSnapshot() throws Exception {
        process.kill9();
        deleteTree(dir.resolve("appendonlydir"));
        Files.copy(dir.resolve("older.rdb"), dir.resolve("dump.rdb"), StandardCopyOption.REPLACE_EXISTING);
        launch(false);
        cli("CONFIG", "SET", "appendonly", "yes");
    }

    /** kill -9, then restart from the AOF. */
    void kill9AndRestartFromAof() throws Exception {
        process.kill9();
        launch(true);
    }

    void flushAll() throws Exception {
        cli("FLUSHALL");
    }

    String cli(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.exists(p)) {
            try (Stream<Path> all = Files.walk(p)) {
                for (Path x : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(x);
                }
            }
        }
    }

    String tail() {
        return process != null ? process.tail() : "";
    }

    @Override
    public void close() throws Exception {
        if (process != null) {
            process.kill9();
        }
    }
}
