package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The commands docs/production.md gives for a logical backup of the SQL issuer's tables on
 * PostgreSQL, run as written: {@code pg_dump -Fc} of the three tables, the migration history and the view,
 * {@code pg_restore --single-transaction --clean --if-exists} into the same database, or {@code pg_restore} into a new
 * one; a gateway then starts on the restored tables and never hands out a token again.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresIssuerDumpRestoreIT {

    private static final Duration TTL = Duration.ofSeconds(30);
    /**
     * What production.md says to dump: the issuer's tables, their Flyway history and the view on
     * them (V2; {@code --clean} drops it before the tables it reads, which it could not drop otherwise).
     */
    private static final List<String> DOCUMENTED = List.of("fencegate_lock_fence", "fencegate_lease_grant",
            "fencegate_lease_waiter", "fencegate_issuer_schema_history", "fencegate_leases");

    @Test
    void theDocumentedDumpRestoresIntoTheSameDatabase() throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(SqlTestDatabase.Kind.POSTGRES)) {
            long before = grantAndRelease(db.url(), "a", 3);
            Path dump = dump(db.schema(), DOCUMENTED);
            long highest = grantAndRelease(db.url(), "a", 3);
            run("pg_restore", "-h", "127.0.0.1", "-U", "postgres", "--single-transaction", "--clean", "--if-exists", "-d", "test", dump.toString());
            assertThat(fenceToken(db.url(), "a")).as("the restored, older fence row").isBetween(before, highest - 1);
            assertThat(grantAndRelease(db.url(), "a", 1)).isGreaterThan(highest);
        }
    }

    @Test
    void theDocumentedDumpRestoresIntoANewDatabaseAndTheThreeTablesAloneDoNot() throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(SqlTestDatabase.Kind.POSTGRES)) {
            long highest = grantAndRelease(db.url(), "a", 3);
            Path full = dump(db.schema(), DOCUMENTED);
            Path tablesOnly = dump(db.schema(), DOCUMENTED.subList(0, 3));
            String fresh = "fg_restore_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
            try {
                admin("test", "CREATE DATABASE " + fresh);
                admin(fresh, "CREATE SCHEMA " + db.schema());
                run("pg_restore", "-h", "127.0.0.1", "-U", "postgres", "--single-transaction", "-d", fresh, full.toString());
                String restoredUrl = "jdbc:postgresql://127.0.0.1:5432/" + fresh + "?currentSchema=" + db.schema();
                assertThat(grantAndRelease(restoredUrl, "a", 1)).isGreaterThan(highest);

                // Without the history the migration finds a schema with tables it did not record.
                admin("test", "DROP DATABASE " + fresh + " WITH (FORCE)", "CREATE DATABASE " + fresh);
                admin(fresh, "CREATE SCHEMA " + db.schema());
                run("pg_restore", "-h", "127.0.0.1", "-U", "postgres", "--single-transaction", "-d", fresh, tablesOnly.toString());
                assertThatThrownBy(() -> grantAndRelease(restoredUrl, "a", 1)).hasStackTraceContaining("already exists");
            } finally {
                admin("test", "DROP DATABASE IF EXISTS " + fresh + " WITH (FORCE)");
            }
        }
    }

    private static Path dump(String schema, List<String> tables) throws Exception {
        Path file = Files.createTempFile(Path.of("target").toAbsolutePath(), "issuer", ".dump");
        List<String> cmd = new ArrayList<>(List.of("pg_dump", "-h", "127.0.0.1", "-U", "postgres", "-Fc", "-f", file.toString()));
        for (String table : tables) {
            cmd.add("-t");
            cmd.add(schema + "." + table);
        }
        cmd.add("test");
        run(cmd.toArray(String[]::new));
        return file;
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    private static void admin(String database, String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/" + database, "postgres", "");
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static long grantAndRelease(String url, String lock, int times) {
        long token = 0;
        try (SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().jdbcUrl(url).user("postgres").password("").poolSize(2).build()) {
            for (int i = 0; i < times; i++) {
                Lease lease = issuer.acquire(lock, TTL, Duration.ofSeconds(5)).toCompletableFuture().join().orElseThrow();
                token = lease.token();
                issuer.release(lease.leaseId()).toCompletableFuture().join();
            }
        }
        return token;
    }

    private static Long fenceToken(String url, String lock) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                var ps = c.prepareStatement("SELECT token FROM fencegate_lock_fence WHERE lock_key = ?")) {
            ps.setBytes(1, SqlLeaseIssuer.sha256(lock.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            try (var rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }
}
