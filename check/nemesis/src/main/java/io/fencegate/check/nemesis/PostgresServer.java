package io.fencegate.check.nemesis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of the harness's own: {@code initdb} into the run's folder, {@code pg_ctl} as
 * the {@code postgres} user (the server refuses root), TCP on loopback only (no Unix socket: a run
 * folder's path may be too long for one). A crash is {@code pg_ctl -m immediate stop}: no
 * checkpoint, so the restart replays the WAL, and every committed write must come back.
 */
final class PostgresServer implements DatabaseServer {
    static final String SCHEMA = "fencegate";
    private static final int BIND_TRIES = 5;

    private final Path dir;
    private final Path data;
    private final Path log;
    private final Path bin;
    private int port;
    private volatile boolean running;

    private PostgresServer(Path dir, Path bin) {
        this.dir = dir;
        this.data = dir.resolve("data");
        this.log = dir.resolve("postgres.log");
        this.bin = bin;
    }

    static PostgresServer start(Path dir) throws Exception {
        PostgresServer pg = new PostgresServer(dir, binDir());
        try {
            pg.open();
            return pg;
        } catch (Exception e) {
            pg.close(); // stops it if it came up, and removes its data
            throw e;
        }
    }

    private void open() throws Exception {
        Files.createDirectories(data);
        DatabaseServer.chown("postgres", dir);
        asPostgres(120, "initdb", "-D", data.toString(), "-U", "postgres", "--auth=trust", "--no-sync");
        for (int attempt = 1; ; attempt++) {
            port = ChildProcess.freePort();
            try {
                launch();
                break;
            } catch (IllegalStateException e) {
                if (attempt == BIND_TRIES || !ChildProcess.bindFailed(log)) {
                    throw e;
                }
                System.err.println("nemesis: postgres port " + port + " was taken; another");
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + SCHEMA);
        }
    }

    /** The newest PostgreSQL installed the Debian way ({@code /usr/lib/postgresql/N/bin}). */
    private static Path binDir() throws Exception {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max((a, b) -> Integer.compare(version(a), version(b)))
                    .orElseThrow(() -> new IllegalStateException("no initdb under /usr/lib/postgresql/*/bin"));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalStateException("PostgreSQL is not installed (no /usr/lib/postgresql)", e);
        }
    }

    private static int version(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private void launch() throws Exception {
        try {
            asPostgres(DatabaseServer.START_SECONDS + 5, "pg_ctl", "-D", data.toString(), "-l", log.toString(), "-w", "-t",
                    Long.toString(DatabaseServer.START_SECONDS), "-o",
                    "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=60", "start");
        } catch (IllegalStateException e) {
            throw new IllegalStateException("postgres on port " + port + " did not start: " + e.getMessage() + "\n" + tail(), e);
        }
        running = true;
        awaitConnectable(jdbcUrl(), () -> { });
    }

    private String asPostgres(long seconds, String tool, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("runuser", "-u", "postgres", "--", bin.resolve(tool).toString()));
        cmd.addAll(List.of(args));
        return ChildProcess.run(seconds, cmd);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String user() {
        return "postgres";
    }

    @Override
    public String jdbcUrlVia(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?currentSchema=" + SCHEMA;
    }

    @Override
    public String crashAndRestart() throws Exception {
        asPostgres(60, "pg_ctl", "-D", data.toString(), "-m", "immediate", "stop");
        running = false;
        long start = System.nanoTime();
        launch();
        return "postgres pg_ctl -m immediate stop, restarted: accepting connections after "
                + (System.nanoTime() - start) / 1_000_000 + " ms";
    }

    @Override
    public String tail() {
        return ChildProcess.tail("postgres", log);
    }

    @Override
    public synchronized void close() throws Exception {
        if (running || Files.exists(data.resolve("postmaster.pid"))) { // also one that came up too late
            running = false;
            try {
                asPostgres(60, "pg_ctl", "-D", data.toString(), "-m", "immediate", "stop");
            } catch (IllegalStateException alreadyDown) {
                System.err.println("nemesis: postgres stop: " + alreadyDown.getMessage());
            }
        }
        DatabaseServer.deleteTree(data); // the log stays beside it, with the run's results
    }
}
