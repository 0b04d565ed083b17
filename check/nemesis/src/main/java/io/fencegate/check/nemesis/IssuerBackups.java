package io.fencegate.check.nemesis;

import io.fencegate.testing.MariaDbServer;
import io.fencegate.testing.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Logical backups of the sql issuer's tables only (never the store's), taken and restored with the
 * server's own tools while the gateways run, as an operator would: {@code pg_dump --clean} and
 * {@code psql}, or {@code mysqldump} and {@code mysql}. A restore brings back older fence rows, the
 * issuer clock's offset as it was, and loses the grants since.
 */
final class IssuerBackups {
    private static final List<String> TABLES = List.of("fencegate_lock_fence", "fencegate_lease_grant", "fencegate_lease_waiter");

    private final boolean postgres;
    private final int port;
    private final Path dir;
    private int taken;
    private Path latest;

    IssuerBackups(boolean postgres, int port, Path dir) throws IOException {
        this.postgres = postgres;
        this.port = port;
        this.dir = Files.createDirectories(dir);
    }

    /** Takes a backup; the next {@link #restoreOlder} goes back to it. */
    void take() throws Exception {
        Path file = dir.resolve("issuer-" + ++taken + ".sql");
        List<String> cmd = new ArrayList<>();
        if (postgres) {
            cmd.addAll(List.of("pg_dump", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres", "-d", "postgres",
                    "--clean", "--if-exists", "-f", file.toString()));
            TABLES.forEach(t -> cmd.addAll(List.of("-t", PostgresServer.SCHEMA + "." + t)));
        } else {
            cmd.addAll(List.of("mysqldump", "-h", "127.0.0.1", "-P", Integer.toString(port), "-u", "root",
                    "--result-file=" + file, MariaDbServer.DATABASE));
            cmd.addAll(TABLES);
        }
        run(cmd, null);
        latest = file;
    }

    /** Restores the last backup, after taking a new one (the next restore goes back to just before this one). */
    String restoreOlder() throws Exception {
        Path older = latest;
        take();
        if (postgres) {
            run(List.of("psql", "-q", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres", "-d", "postgres",
                    "-v", "ON_ERROR_STOP=1", "-f", older.toString()), null);
        } else {
            run(List.of("mysql", "-h", "127.0.0.1", "-P", Integer.toString(port), "-u", "root", MariaDbServer.DATABASE), older);
        }
        return "the issuer's tables restored from " + older.getFileName() + " (" + (postgres ? "pg_dump" : "mysqldump") + ")";
    }

    private static void run(List<String> cmd, Path input) throws Exception {
        ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (input != null) {
            b.redirectInput(input.toFile());
        }
        Path out = Files.createTempFile("fg-issuer-backup", ".out");
        b.redirectOutput(out.toFile());
        Process p = b.start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + Files.readString(out));
            }
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }
}
