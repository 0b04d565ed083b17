package io.fencegate.issuer.sql;

import io.fencegate.testing.DatabaseServer;
import io.fencegate.testing.LogicalDumps;
import io.fencegate.testing.MariaDbServer;
import io.fencegate.testing.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A database server of the test's own whose wall clock the test steps: Debian's libfaketime
 * preloaded into the server, reading its offset from a file on every clock call
 * ({@code FAKETIME_NO_CACHE}), so a step takes effect at once. Only the wall clock moves (the
 * monotonic clock is not faked), as an NTP step does on a real host. Also takes and restores logical
 * backups with the server's own tools ({@code pg_dump}/{@code psql}, {@code mysqldump}/{@code mysql}).
 */
final class SteppedDatabaseServer implements AutoCloseable {
    enum Kind { POSTGRES, MARIADB }

    final Kind kind;
    private final Path dir;
    private final Path control;
    private final DatabaseServer server;

    private SteppedDatabaseServer(Kind kind, Path dir, Path control, DatabaseServer server) {
        this.kind = kind;
        this.dir = dir;
        this.control = control;
        this.server = server;
    }

    static SteppedDatabaseServer start(Kind kind) throws Exception {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "fg-stepped-" + kind.name().toLowerCase() + "-");
        dir.toFile().setReadable(true, false);
        dir.toFile().setExecutable(true, false); // the server's user reads the control file and owns a folder in here
        Path control = dir.resolve("faketime");
        Files.writeString(control, "+0\n");
        control.toFile().setReadable(true, false);
        Map<String, String> env = Map.of("LD_PRELOAD", library().toString(), "FAKETIME_TIMESTAMP_FILE", control.toString(),
                "FAKETIME_NO_CACHE", "1", "DONT_FAKE_MONOTONIC", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                "FAKETIME_FORCE_MONOTONIC_FIX", "0", "NO_FAKE_STAT", "1");
        Path data = dir.resolve("server");
        DatabaseServer server = kind == Kind.POSTGRES ? PostgresServer.start(data, env) : MariaDbServer.start(data, env);
        return new SteppedDatabaseServer(kind, dir, control, server);
    }

    private static Path library() throws IOException {
        try (Stream<Path> arches = Files.list(Path.of("/usr/lib"))) {
            return arches.map(a -> a.resolve("faketime").resolve("libfaketime.so.1")).filter(Files::isRegularFile).findFirst()
                    .orElseThrow(() -> new IllegalStateException("libfaketime not found: apt-get install faketime"));
        }
    }

    /** Sets the server's wall clock {@code seconds} off the true time (negative: behind); at once. */
    void offset(long seconds) throws IOException {
        Path tmp = dir.resolve("faketime.tmp");
        Files.writeString(tmp, (seconds < 0 ? "" : "+") + seconds + "\n");
        tmp.toFile().setReadable(true, false);
        Files.move(tmp, control, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    String url() {
        return server.jdbcUrl();
    }

    String user() {
        return server.user();
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), server.user(), "");
    }

    /** An issuer with a pool of its own, as a separate gateway would have. */
    SqlLeaseIssuerBuilder issuer() {
        return SqlLeaseIssuer.builder().jdbcUrl(url()).user(server.user()).password("").poolSize(3);
    }

    /** The server's clock, epoch ms. */
    long serverMillis() throws SQLException {
        try (Connection c = connect(); var s = c.createStatement();
                var rs = s.executeQuery("SELECT " + (kind == Kind.POSTGRES ? SqlDialect.POSTGRESQL : SqlDialect.MYSQL).serverNowUs)) {
            rs.next();
            return rs.getLong(1) / 1000;
        }
    }

    /** A logical backup of the issuer's tables and their Flyway history, as an operator takes it; answers the file. */
    Path dump(String name) throws Exception {
        Path file = dir.resolve(name + ".sql");
        LogicalDumps.dump(server, file, List.of());
        return file;
    }

    /** Restores a backup {@link #dump} took: the tables as they were then. */
    void restore(Path file) throws Exception {
        LogicalDumps.restore(server, file);
    }

    @Override
    public void close() throws Exception {
        try {
            server.close();
        } finally {
            try (Stream<Path> all = Files.walk(dir)) {
                all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
