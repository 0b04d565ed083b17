package io.fencegate.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A database server a test or harness owns (never the shared one): its data under a folder of its
 * own, on a port of its own, so it can be crashed and restarted without touching anyone else's
 * tests. What PostgreSQL and MariaDB share lives here: the port chosen again when another process
 * took it first, the wait until it accepts connections, and the one database or schema it is
 * created with. The JDBC drivers come from the caller's classpath.
 */
public abstract class DatabaseServer implements AutoCloseable {
    /** How long a start or a restart may take before the caller gives up (recovery included). */
    public static final long START_SECONDS = 90;
    private static final int BIND_TRIES = 5;

    protected final Path dir;
    private final String kind;
    private final String user;
    private final String serverPath;
    private final String databasePath;
    private int port;

    /**
     * {@code kind} is the JDBC URL's sub-protocol ({@code postgresql}, {@code mariadb}); a URL is
     * {@code jdbc:KIND://127.0.0.1:PORT} and {@code serverPath} (the server itself) or
     * {@code databasePath} (its one database or schema).
     */
    protected DatabaseServer(String kind, Path dir, String user, String serverPath, String databasePath) {
        this.kind = kind;
        this.dir = dir;
        this.user = user;
        this.serverPath = serverPath;
        this.databasePath = databasePath;
    }

    public final int port() {
        return port;
    }

    public final String user() {
        return user;
    }

    /** The JDBC URL of its one database (or schema), reached through {@code port} (its own, or a proxy's). */
    public final String jdbcUrlVia(int port) {
        return "jdbc:" + kind + "://127.0.0.1:" + port + databasePath;
    }

    public final String jdbcUrl() {
        return jdbcUrlVia(port());
    }

    /** Crashes it (no clean shutdown: what a power cut leaves) and starts it again; answers what it did. */
    public abstract String crashAndRestart() throws Exception;

    /** The last lines of its log, for a failure message. */
    public abstract String tail();

    /** Starts the server on {@link #port()}; throws IllegalStateException if it did not come up. */
    protected abstract void launch() throws Exception;

    /** Whether the last {@link #launch()} failed because its port was taken. */
    protected abstract boolean bindFailed();

    /** The JDBC URL of the server itself (no database or schema of its own yet), on its port. */
    protected final String serverUrl() {
        return "jdbc:" + kind + "://127.0.0.1:" + port + serverPath;
    }

    /** Launches it on a free port, and on another if a process took that one first; then runs {@code setupSql}. */
    protected final void launchOnFreePort(String setupSql) throws Exception {
        for (int attempt = 1; ; attempt++) {
            port = ChildProcess.freePort();
            try {
                launch();
                break;
            } catch (IllegalStateException e) {
                if (attempt == BIND_TRIES || !bindFailed()) {
                    throw e;
                }
                System.err.println(kind + " port " + port + " was taken; another");
            }
        }
        try (Connection c = DriverManager.getConnection(serverUrl(), user, ""); Statement s = c.createStatement()) {
            s.execute(setupSql);
        }
    }

    /** Waits until a connection to {@code url} opens; throws with the server's log if it does not in time. */
    protected final long awaitConnectable(String url, Runnable checkAlive) throws Exception {
        long start = System.nanoTime();
        long deadline = start + START_SECONDS * 1_000_000_000L;
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            checkAlive.run();
            try (Connection c = DriverManager.getConnection(url, user, "")) {
                return (System.nanoTime() - start) / 1_000_000;
            } catch (SQLException e) {
                last = e;
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException(kind + " at " + url + " not accepting connections after " + START_SECONDS + " s ("
                + last + ")\n" + tail());
    }

    /** Starts {@code server}; closes it (stopping what came up, removing its data) if that fails. */
    protected static <S extends DatabaseServer> S started(S server, Opener<S> open) throws Exception {
        try {
            open.open(server);
            return server;
        } catch (Exception e) {
            server.close();
            throw e;
        }
    }

    /** What a server does to come up the first time. */
    protected interface Opener<S> {
        void open(S server) throws Exception;
    }
}
