package io.fencegate.check.nemesis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Debian's pgbouncer in transaction mode, in front of the harness's PostgreSQL (reached on
 * {@code upstreamPort}: the database's proxy, so a link fault cuts pgbouncer's server connections
 * too), with its config and auth file in the run's folder. Its database {@value #DATABASE} is the
 * server's {@code postgres} database with {@code search_path} set to one schema on every server
 * connection: pgbouncer 1.18 refuses {@code search_path} as a client's start-up parameter. Started
 * with {@code -u postgres} (it will not run as root), so the process the harness holds is pgbouncer
 * itself, stopped by its PID.
 */
final class Pgbouncer implements AutoCloseable {
    static final String DATABASE = "fencegate";
    private static final Path BINARY = Path.of("/usr/sbin/pgbouncer");
    private static final int BIND_TRIES = 5;
    private static final long LISTEN_SECONDS = 30;

    private final Path dir;
    private ChildProcess process;
    private int port;

    private Pgbouncer(Path dir) {
        this.dir = dir;
    }

    static Pgbouncer start(Path dir, int upstreamPort, String schema) throws Exception {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException("pgbouncer not found (" + BINARY + "): apt-get install pgbouncer");
        }
        Files.createDirectories(dir);
        Pgbouncer b = new Pgbouncer(dir);
        try {
            Files.writeString(dir.resolve("users.txt"), "\"postgres\" \"\"\n");
            for (int attempt = 1; ; attempt++) {
                b.port = ChildProcess.freePort();
                Path ini = dir.resolve("pgbouncer.ini");
                Files.writeString(ini, b.config(upstreamPort, schema));
                DatabaseServer.chown("postgres", dir);
                b.process = ChildProcess.start("pgbouncer" + (attempt > 1 ? "-" + attempt : ""), dir,
                        List.of(BINARY.toString(), "-u", "postgres", ini.toString()));
                try {
                    b.awaitListening();
                    return b;
                } catch (IllegalStateException e) {
                    if (attempt == BIND_TRIES || !b.process.bindFailed()) {
                        throw e;
                    }
                    b.process.close();
                    System.err.println("nemesis: pgbouncer port " + b.port + " was taken; another");
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
    private String config(int upstreamPort, String schema) {
        return """
                [databases]
                %s = host=127.0.0.1 port=%d dbname=postgres user=postgres connect_query='SET search_path TO %s'
                [pgbouncer]
                listen_addr = 127.0.0.1
                listen_port = %d
                unix_socket_dir =
                auth_type = trust
                auth_file = %s
                pool_mode = transaction
                default_pool_size = 8
                max_client_conn = 200
                ignore_startup_parameters = extra_float_digits
                server_login_retry = 1
                server_connect_timeout = 3
                query_wait_timeout = 5
                """.formatted(DATABASE, upstreamPort, schema, port, dir.resolve("users.txt"));
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

    int port() {
        return port;
    }

    /**
     * PgJDBC through it: no server-side prepared statements (pgbouncer before 1.21 cannot keep
     * them in transaction mode), every call bounded.
     */
    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE + "?prepareThreshold=0&connectTimeout=5&socketTimeout=10";
    }

    String tail() {
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
