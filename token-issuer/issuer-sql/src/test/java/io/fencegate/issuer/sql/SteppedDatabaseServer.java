package io.fencegate.issuer.sql;

import io.fencegate.testing.DatabaseServer;
import io.fencegate.testing.LogicalDumps;
import io.fencegate.testing.MariaDbServer;
import io.fencegate.testing.PostgresServer;
import io.fencegate.testing.SteppedWallClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Stream;

/**
 * A database server of the test's own whose wall clock the test steps ({@link SteppedWallClock}, at
 * once). Only the wall clock moves, as an NTP step does on a real host. Also takes and restores logical
 * backups with the server's own tools ({@code pg_dump}/{@code psql}, {@code mysqldump}/{@code mysql}).
 */
final class SteppedDatabaseServer implements AutoCloseable {
    enum Kind { POSTGRES, MARIADB }

    final Kind kind;
    private final Path dir;
    private final SteppedWallClock clock;
    private final DatabaseServer server;

    private SteppedDatabaseServer(Kind kind, Path dir, SteppedWallClock clock, DatabaseServer server) {
        this.kind = kind;
        this.dir = dir;
        this.clock = clock;
        this.server = server;
    }

    static SteppedDatabaseServer start(Kind kind) throws Exception {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "fg-stepped-" + kind.name().toLowerCase() + "-");
        dir.toFile().setReadable(true, false);
        dir.toFile().setExecutable(true, false); // the server's user reads the control file and owns a folder in here
        SteppedWallClock clock = SteppedWallClock.create(dir.resolve("faketime"), SteppedWallClock.PickUp.AT_ONCE);
        Path data = dir.resolve("server");
        DatabaseServer server = kind == Kind.POSTGRES ? PostgresServer.start(data, clock.environment())
                : MariaDbServer.start(data, clock.environment());
        return new SteppedDatabaseServer(kind, dir, clock, server);
    }

    /** Sets the server's wall clock {@code seconds} off the true time (negative: behind); at once. */
    void offset(long seconds) throws IOException {
        clock.offset(seconds);
    }

    /** The same to the millisecond. */
    void offsetMillis(long millis) throws IOException {
        clock.offsetMillis(millis);
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
