package io.fencegate.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Debian's pgbouncer in transaction mode, in front of a PostgreSQL reached on {@code upstreamPort}
 * (the shared server, or a harness's proxy to its own, so a link fault cuts pgbouncer's server
 * connections too), with its config and auth file in {@code dir}. Its database {@value #DATABASE}
 * is the upstream {@code database} with {@code search_path} set to one schema on every server
 * connection: pgbouncer 1.18 refuses {@code search_path} as a client's start-up parameter. Started
 * with {@code -u postgres} (it will not run as root), so the process held is pgbouncer itself,
 * stopped by its PID.
 */
public final class PgbouncerServer implements AutoCloseable {
    static final String DATABASE = "fencegate";
    private static final Path BINARY = Path.of("/usr/sbin/pgbouncer");
    private static final int BIND_TRIES = 5;
    private static final long LISTEN_SECONDS = 30;

    private final Path dir;
    private ChildProcess process;
    private int port;

    private PgbouncerServer(Path dir) {
        this.dir = dir;
    }

    /** pgbouncer for {@code schema} of {@code database} on 127.0.0.1:{@code upstreamPort}, {@code poolSize} server connections. */
    public static PgbouncerServer start(Path dir, int upstreamPort, String database, String schema, int poolSize) throws Exception {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException("pgbouncer not found (" + BINARY + "): apt-get install pgbouncer");
        }
        Files.createDirectories(dir);
        PgbouncerServer b = new PgbouncerServer(dir);
        try {
            Files.writeString(dir.resolve("users.txt"), "\"postgres\" \"\"\n");
            for (int attempt = 1; ; attempt++) {
                b.port = ChildProcess.freePort();
                Path ini = dir.resolve("pgbouncer.ini");
                Files.writeString(ini, b.config(upstreamPort, database, schema, poolSize));
                Folders.chown("postgres", dir);
                String name = "pgbouncer" + (attempt > 1 ? "-" + attempt : "");
                b.process = ChildProcess.command(name, List.of(BINARY.toString(), "-u", "postgres", ini.toString()))
                        .logTo(dir.resolve(name + ".log")).start();
                try {
                    b.awaitListening();
                    return b;
                } catch (IllegalStateException e) {
                    if (attempt == BIND_TRIES || !b.process.bindFailed()) {
                        throw e;
                    }
                    b.process.close();
                    System.err.println("pgbouncer: port " + b.port + " was taken; another");
                }
            }
        } catch (Exception e) {
            b.close();
            throw e;
        }
    }

    /**
     * A lost server is retried after 1 s, not pgbouncer's default 15 s (a crash-restart would then
     * last 15 s longer behind it); a client waits at most 5 s for a server connection.
     */
    private String config(int upstreamPort, String database, String schema, int poolSize) {
        return """
                [databases]
                %s = host=127.0.0.1 port=%d dbname=%s user=postgres connect_query='SET search_path TO %s'
                [pgbouncer]
                listen_addr = 127.0.0.1
                listen_port = %d
                unix_socket_dir =
                auth_type = trust
                auth_file = %s
                pool_mode = transaction
                default_pool_size = %d
                max_client_conn = 200
                ignore_startup_parameters = extra_float_digits
                server_login_retry = 1
                server_connect_timeout = 3
                query_wait_timeout = 5
                """.formatted(DATABASE, upstreamPort, database, schema, port, dir.resolve("users.txt"), poolSize);
    }

    private void awaitListening() throws InterruptedException {
        long deadline = System.nanoTime() + LISTEN_SECONDS * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (!process.alive()) {
                throw new IllegalStateException("pgbouncer on port " + port + " exited\n" + tail());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("pgbouncer not listening on " + port + " after " + LISTEN_SECONDS + " s\n" + tail());
    }

    public int port() {
        return port;
    }

    /**
     * PgJDBC through it: no server-side prepared statements (pgbouncer before 1.21 cannot keep
     * them in transaction mode), every call bounded by {@code socketTimeoutSeconds}.
     */
    public String jdbcUrl(int socketTimeoutSeconds) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE + "?prepareThreshold=0&connectTimeout=5&socketTimeout="
                + socketTimeoutSeconds;
    }

    public String tail() {
        return process != null ? process.tail() : "";
    }

    @Override
    public void close() throws Exception {
        if (process != null) {
            process.close();
        }
    }

    @Override
    public String toString() {
        return "pgbouncer on port " + port;
    }
}
