package io.fencegate.check.nemesis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A database server the harness owns (never the shared one): its data under the run's folder, on a
 * port of its own, so it can be crashed and restarted without touching anyone else's tests.
 */
interface DatabaseServer extends AutoCloseable {
    /** How long a start or a restart may take before the harness gives up (recovery included). */
    long START_SECONDS = 90;

    int port();

    String user();

    /** The JDBC URL of the harness's database on it, reached through {@code port} (its own, or a proxy's). */
    String jdbcUrlVia(int port);

    default String jdbcUrl() {
        return jdbcUrlVia(port());
    }

    /** Crashes it (no clean shutdown: what a power cut leaves) and starts it again; answers what it did. */
    String crashAndRestart() throws Exception;

    /** The last lines of its log, for a failure message. */
    String tail();

    /** Waits until a connection to {@code url} opens; throws with the server's log if it does not in time. */
    default long awaitConnectable(String url, Runnable checkAlive) throws Exception {
        long start = System.nanoTime();
        long deadline = start + START_SECONDS * 1_000_000_000L;
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            checkAlive.run();
            try (Connection c = DriverManager.getConnection(url, user(), "")) {
                return (System.nanoTime() - start) / 1_000_000;
            } catch (SQLException e) {
                last = e;
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("database at " + url + " not accepting connections after " + START_SECONDS + " s ("
                + last + ")\n" + tail());
    }

    /** Removes a data directory the server has stopped using. */
    static void deleteTree(Path p) throws IOException {
        if (Files.exists(p)) {
            try (Stream<Path> all = Files.walk(p)) {
                for (Path x : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(x);
                }
            }
        }
    }

    /**
     * {@code chown -R user dir}: the server runs as its own system user, never as root. That user
     * must also be able to reach it: every folder above it needs the x bit for others.
     */
    static void chown(String user, Path dir) throws Exception {
        ChildProcess.run(30, List.of("chown", "-R", user, dir.toString()));
        try {
            ChildProcess.run(30, List.of("runuser", "-u", user, "--", "test", "-w", dir.toString()));
        } catch (IllegalStateException e) {
            throw new IllegalStateException("the " + user + " user cannot reach " + dir + ": a folder above it is closed to"
                    + " others (chmod o+x it, or choose an --out under /tmp)", e);
        }
    }
}
