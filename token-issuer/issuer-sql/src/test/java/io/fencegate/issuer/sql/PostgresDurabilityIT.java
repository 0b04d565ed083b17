package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.testing.PgbouncerServer;
import io.fencegate.testing.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An acknowledged grant survives a crash of the database server whatever its durability settings:
 * on a PostgreSQL server of the test's own, crashed with {@code pg_ctl -m immediate stop}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PostgresDurabilityIT {

    private static final Duration TTL = Duration.ofSeconds(120);
    private static Path dir;
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "pg-durability");
        server = PostgresServer.start(dir);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        deleteTree(dir);
    }

    @AfterEach
    void resetSettings() throws Exception {
        alterSystem("ALTER SYSTEM RESET ALL");
    }

    @Test
    void acknowledgedGrantsSurviveAnImmediateCrashUnderSynchronousCommitOff() throws Exception {
        // Commits are acknowledged before their WAL is flushed, and the WAL writer waits its longest
        // between flushes: a crash right after a burst loses every commit since the last flush.
        alterSystem("ALTER SYSTEM SET synchronous_commit = off", "ALTER SYSTEM SET wal_writer_delay = '10s'");
        List<Lease> granted = new ArrayList<>();
        // The first issuer stays open until the end: closing it would release its leases.
        try (SqlLeaseIssuer issuer = issuer().build()) {
            for (int i = 0; i < 40; i++) {
                granted.add(issuer.acquire("burst-" + i, TTL, Duration.ZERO).toCompletableFuture().join().orElseThrow());
            }
            server.crashAndRestart();
            try (SqlLeaseIssuer after = issuer().build()) {
                List<String> lost = new ArrayList<>();
                for (Lease lease : granted) {
                    boolean known = after.wasGranted(lease.lock(), lease.token()).toCompletableFuture().join();
                    Optional<Lease> again = after.acquire(lease.lock(), TTL, Duration.ZERO).toCompletableFuture().join();
                    if (!known || again.isPresent()) {
                        lost.add(lease.lock() + " (token " + lease.token() + ", wasGranted " + known
                                + ", granted again " + again.map(Lease::token).orElse(null) + ")");
                    }
                }
                assertThat(lost).as("acknowledged grants lost in the crash").isEmpty();
            }
        }
    }

    @Test
    void fsyncOffIsRefusedWithTheReasonAndServedAgainOnceFixed() throws Exception {
        alterSystem("ALTER SYSTEM SET fsync = off");
        try (SqlLeaseIssuer issuer = issuer().durabilityCheckEvery(Duration.ofMillis(200)).build()) {
            assertRefused(issuer, "fsync");
            alterSystem("ALTER SYSTEM RESET fsync");
            await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(issuer.acquire("fsync", TTL, Duration.ZERO).toCompletableFuture().join()).isPresent());
            assertThat(issuer.wasGranted("fsync", 1).toCompletableFuture().join()).isFalse();
        }
    }

    @Test
    void behindATransactionPoolerAServerDefaultOfSynchronousCommitOffIsRefusedUntilFixed() throws Exception {
        // pgbouncer (transaction mode, start-up options refused) runs each transaction on any of its
        // server connections: only the server's own setting holds for all of them.
        alterSystem("ALTER SYSTEM SET synchronous_commit = off");
        Path bouncerDir = Files.createTempDirectory(Path.of("/tmp"), "fg-durability-bouncer");
        try (PgbouncerServer bouncer = PgbouncerServer.start(bouncerDir, server.port(), "postgres", PostgresServer.SCHEMA, 3);
                SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().jdbcUrl(bouncer.jdbcUrl(30)).user("postgres").password("")
                        .poolSize(3).notifications(false).durabilityCheckEvery(Duration.ofMillis(200)).build()) {
            assertRefused(issuer, "synchronous_commit");
            alterSystem("ALTER SYSTEM RESET synchronous_commit");
            await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(issuer.acquire("pooled", TTL, Duration.ZERO).toCompletableFuture().join()).isPresent());
        } finally {
            deleteTree(bouncerDir);
        }
    }

    static void assertRefused(SqlLeaseIssuer issuer, String setting) {
        assertThatThrownBy(() -> issuer.acquire("refused", TTL, Duration.ZERO).toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).cause()
                .isInstanceOf(IssuerUnavailableException.class).hasMessageContaining(setting);
        // What the gateway's /health probes: it must say DOWN while grants are refused.
        assertThatThrownBy(() -> issuer.wasGranted("fencegate/health-probe", 1).toCompletableFuture().join())
                .cause().isInstanceOf(IssuerUnavailableException.class).hasMessageContaining(setting);
        assertThat(issuer.failingClosed()).hasValueSatisfying(r -> assertThat(r).contains(setting));
    }

    static void deleteTree(Path dir) throws java.io.IOException {
        if (dir != null && Files.exists(dir)) {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static SqlLeaseIssuerBuilder issuer() {
        return SqlLeaseIssuer.builder().jdbcUrl(server.jdbcUrl()).user(server.user()).password("").poolSize(4);
    }

    private static void alterSystem(String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(), ""); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
            s.execute("SELECT pg_reload_conf()");
        }
        Thread.sleep(300); // the postmaster signals its children; give them a moment to reread
    }
}
