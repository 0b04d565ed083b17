package io.fencegate.issuer.sql;

import io.fencegate.testing.ChildProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's pgbouncer in transaction mode, a child process of the test, in front of the shared
 * PostgreSQL: database {@code fg} is {@code test} with {@code search_path} set to one schema on every
 * server connection (pgbouncer 1.18 refuses {@code search_path} as a client's start-up parameter).
 * Runs as user {@code postgres} (pgbouncer will not run as root); stopped by its pid.
 */
record PgbouncerProcess(Path dir, ChildProcess process, int port) implements AutoCloseable {

    static PgbouncerProcess start(String schema) throws Exception {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "fg-pgbouncer",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.writeString(dir.resolve("users.txt"), "\"postgres\" \"\"\n");
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = ChildProcess.freePort(); // may be taken before pgbouncer binds it: retried below
            Files.writeString(dir.resolve("pgbouncer.ini"), """
                    [databases]
                    fg = host=127.0.0.1 port=5432 dbname=test user=postgres connect_query='SET search_path TO %s'
                    [pgbouncer]
                    listen_addr = 127.0.0.1
                    listen_port = %d
                    unix_socket_dir =
                    auth_type = trust
                    auth_file = %s
                    pool_mode = transaction
                    default_pool_size = 4
                    max_client_conn = 200
                    ignore_startup_parameters = extra_float_digits
                    pidfile = %s
                    logfile = %s
                    """.formatted(schema, port, dir.resolve("users.txt"), dir.resolve("pid"), dir.resolve("log")),
                    StandardCharsets.UTF_8);
            ChildProcess process = ChildProcess.command("pgbouncer", List.of("runuser", "-u", "postgres", "--", "pgbouncer",
                    dir.resolve("pgbouncer.ini").toString())).logTo(dir.resolve("out")).start();
            PgbouncerProcess bouncer = new PgbouncerProcess(dir, process, port);
            if (bouncer.awaitListening()) {
                return bouncer;
            }
            bouncer.close();
            last = new IOException("pgbouncer did not listen on " + port + ": " + bouncer.log());
        }
        throw last;
    }

    String url() {
        // prepareThreshold=0: pgbouncer before 1.21 cannot keep server-side prepared statements.
        return "jdbc:postgresql://127.0.0.1:" + port + "/fg?prepareThreshold=0&connectTimeout=5&socketTimeout=30";
    }

    private boolean awaitListening() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline && process.alive()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return true;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        return false;
    }

    private String log() {
        try {
            return Files.exists(dir.resolve("log")) ? Files.readString(dir.resolve("log")) : Files.readString(dir.resolve("out"));
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Override
    public void close() throws Exception {
        Path pidFile = dir.resolve("pid");
        if (Files.exists(pidFile)) {
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
            ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(10, TimeUnit.SECONDS).join());
        }
        process.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }
}
