package io.fencegate.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of a test's own: {@code initdb} into its folder, {@code pg_ctl} as the
 * {@code postgres} user (the server refuses root), TCP on loopback only (no Unix socket: a folder's
 * path may be too long for one), with one schema, {@value #SCHEMA}. A crash is {@code pg_ctl -m
 * immediate stop}: no checkpoint, so the restart replays the WAL, and every committed write must
 * come back.
 */
public final class PostgresServer extends DatabaseServer {
    public static final String SCHEMA = "fencegate";

    private final Path data;
    private final Path log;
    private final Path bin;
    private final Map<String, String> serverEnv;
    private volatile boolean running;

    private PostgresServer(Path dir, Path bin, Map<String, String> serverEnv) {
        super("postgresql", dir, "postgres", "/postgres", "/postgres?currentSchema=" + SCHEMA);
        this.data = dir.resolve("data");
        this.log = dir.resolve("postgres.log");
        this.bin = bin;
        this.serverEnv = serverEnv;
    }

    public static PostgresServer start(Path dir) throws Exception {
        return start(dir, Map.of());
    }

    /**
     * A server whose process gets {@code serverEnv} too (e.g. libfaketime's variables: a server whose
     * wall clock a test steps); its tools (initdb, pg_ctl's stop) run without it.
     */
    public static PostgresServer start(Path dir, Map<String, String> serverEnv) throws Exception {
        return started(new PostgresServer(dir, binDir(), serverEnv), PostgresServer::open);
    }

    private void open() throws Exception {
        Files.createDirectories(data);
        Folders.chown("postgres", dir);
        asPostgres(120, "initdb", "-D", data.toString(), "-U", "postgres", "--auth=trust", "--no-sync");
        launchOnFreePort("CREATE SCHEMA " + SCHEMA);
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

    @Override
    protected void launch() throws Exception {
        try {
            asPostgres(serverEnv, START_SECONDS + 5, "pg_ctl", "-D", data.toString(), "-l", log.toString(), "-w", "-t",
                    Long.toString(START_SECONDS), "-o",
                    "-p " + port() + " -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=60", "start");
        } catch (IllegalStateException e) {
            throw new IllegalStateException("postgres on port " + port() + " did not start: " + e.getMessage() + "\n" + tail(), e);
        }
        running = true;
        awaitConnectable(jdbcUrl(), () -> { });
    }

    @Override
    protected boolean bindFailed() {
        return ChildProcess.bindFailed(log);
    }

    private String asPostgres(long seconds, String tool, String... args) throws Exception {
        return asPostgres(Map.of(), seconds, tool, args);
    }

    private String asPostgres(Map<String, String> env, long seconds, String tool, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        if (!env.isEmpty()) {
            cmd.add("env"); // runuser keeps little of the caller's environment: name it on env's command line
            env.forEach((k, v) -> cmd.add(k + "=" + v));
        }
        cmd.add(bin.resolve(tool).toString());
        cmd.addAll(List.of(args));
        return ChildProcess.run(seconds, cmd);
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
                System.err.println("postgres stop: " + alreadyDown.getMessage());
            }
        }
        Folders.deleteTree(data); // the log stays beside it
    }
}
