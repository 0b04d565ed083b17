package io.fencegate.bench;

import io.fencegate.testing.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code redis-cli monitor} on a redis-server of the bench's own, between two markers: the commands
 * clients sent, by name, and apart from them ({@code lua:NAME}) those their scripts ran, which
 * are no round trips. A client's round trips are the commands it sent; pipelined ones count one each.
 */
final class RedisMonitor {
    private final RedisServer server;
    private final Path log;
    private final Process process;

    private RedisMonitor(RedisServer server, Path log, Process process) {
        this.server = server;
        this.log = log;
        this.process = process;
    }

    static RedisMonitor start(RedisServer server, Path log) throws Exception {
        Files.deleteIfExists(log);
        Process monitor = new ProcessBuilder("redis-cli", "-p", Integer.toString(server.port()), "monitor")
                .redirectOutput(log.toFile()).redirectErrorStream(true).start();
        awaitLine(log, "OK");
        server.command("ECHO cost-start");
        return new RedisMonitor(server, log, monitor);
    }

    /** Stops monitoring; the commands sent since {@link #start}, by name, and those scripts ran, as {@code lua:NAME}. */
    Map<String, Long> stop() throws Exception {
        server.command("ECHO cost-end");
        awaitLine(log, "\"cost-end\"");
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
        Map<String, Long> sent = new TreeMap<>();
        boolean counting = false;
        for (String line : Files.readAllLines(log)) {
            if (line.contains("\"cost-start\"")) {
                counting = true;
                continue;
            }
            if (line.contains("\"cost-end\"")) {
                break;
            }
            int at = line.indexOf("] \"");
            if (counting && at >= 0) {
                // A script's own commands are marked, e.g. "lua:GET": they run inside the call that sent the script.
                String command = line.substring(at + 3, line.indexOf('"', at + 3)).toUpperCase();
                sent.merge(line.contains(" lua] ") ? "lua:" + command : command, 1L, Long::sum);
            }
        }
        return sent;
    }

    /** Redis's own time by command since {@link #resetStats}, µs (a script's time includes its commands'), from INFO commandstats. */
    static Map<String, Long> commandMicros(RedisServer server) throws Exception {
        Process info = new ProcessBuilder("redis-cli", "-p", Integer.toString(server.port()), "info", "commandstats")
                .redirectErrorStream(true).start();
        String text = new String(info.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        info.waitFor(10, TimeUnit.SECONDS);
        Map<String, Long> micros = new TreeMap<>();
        for (String line : text.split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_config") && !line.startsWith("cmdstat_info")) {
                micros.put(line.substring("cmdstat_".length(), line.indexOf(':')),
                        Long.parseLong(line.replaceAll("^cmdstat_[^:]+:calls=\\d+,usec=(\\d+),.*", "$1")));
            }
        }
        return micros;
    }

    static void resetStats(RedisServer server) {
        server.command("CONFIG RESETSTAT");
    }

    private static void awaitLine(Path log, String text) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains(text)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("redis-cli monitor: no '" + text + "' in " + log);
    }
}
