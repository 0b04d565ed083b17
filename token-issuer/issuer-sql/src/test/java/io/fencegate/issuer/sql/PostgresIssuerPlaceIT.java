package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One URL, two database roles: PostgreSQL resolves the issuer's tables through each role's
 * search_path, and a role with a schema of its own would get a second set of tables, so two
 * gateways would grant one lock at once. On a database of the test's own on the shared server, with
 * two roles of its own (dropped after).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresIssuerPlaceIT {

    private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
    private static final Duration TTL = Duration.ofSeconds(60);
    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String database = "fg_place_" + suffix;
    private final String roleA = "fg_place_a_" + suffix;
    private final String roleB = "fg_place_b_" + suffix;
    private final List<SqlLeaseIssuer> issuers = new ArrayList<>();

    @BeforeEach
    void createDatabaseAndRoles() throws Exception {
        try (Connection c = DriverManager.getConnection(SERVER + "test", "postgres", ""); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
            // Superusers: no grants to arrange; what matters here is only how names resolve.
            s.execute("CREATE ROLE " + roleA + " LOGIN SUPERUSER");
            s.execute("CREATE ROLE " + roleB + " LOGIN SUPERUSER");
        }
        try (Connection c = DriverManager.getConnection(SERVER + database, "postgres", ""); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA AUTHORIZATION " + roleB); // B's search_path "$user", public now starts with it
        }
    }

    @AfterEach
    void dropDatabaseAndRoles() throws Exception {
        issuers.forEach(SqlLeaseIssuer::close);
        try (Connection c = DriverManager.getConnection(SERVER + "test", "postgres", ""); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            s.execute("DROP ROLE IF EXISTS " + roleA);
            s.execute("DROP ROLE IF EXISTS " + roleB);
        }
    }

    @Test
    void aSecondRoleOnTheSameUrlNeverHoldsALockTheFirstHolds() throws Exception {
        SqlLeaseIssuer a = issuer(roleA, url());
        Lease held = a.acquire("x", TTL, Duration.ZERO).toCompletableFuture().join().orElseThrow();
        Optional<Lease> second;
        try {
            second = issuer(roleB, url()).acquire("x", TTL, Duration.ZERO).toCompletableFuture().join();
        } catch (IllegalStateException refused) {
            assertThat(refused).hasMessageContaining("search_path").hasMessageContaining("currentSchema=public");
            second = Optional.empty();
        }
        assertThat(second).as("a second live holder of the lock %s holds", held).isEmpty();
        assertThat(a.wasGranted("x", held.token()).toCompletableFuture().join()).isTrue();
    }

    @Test
    void twoRolesStartingAtOnceOnAnEmptyDatabaseNeverBothServe() throws Exception {
        CompletableFuture<SqlLeaseIssuer> a = CompletableFuture.supplyAsync(() -> issuer(roleA, url()));
        CompletableFuture<SqlLeaseIssuer> b = CompletableFuture.supplyAsync(() -> issuer(roleB, url()));
        List<SqlLeaseIssuer> serving = new ArrayList<>();
        for (CompletableFuture<SqlLeaseIssuer> f : List.of(a, b)) {
            try {
                serving.add(f.get(60, TimeUnit.SECONDS));
            } catch (java.util.concurrent.ExecutionException refused) {
                assertThat(refused.getCause()).isInstanceOf(IllegalStateException.class).hasMessageContaining("search_path");
            }
        }
        List<Lease> holders = new ArrayList<>();
        for (SqlLeaseIssuer issuer : serving) {
            try {
                issuer.acquire("x", TTL, Duration.ZERO).toCompletableFuture().join().ifPresent(holders::add);
            } catch (java.util.concurrent.CompletionException refused) {
                // refusing is what a second set must cause
            }
        }
        assertThat(holders).as("live holders of one lock").hasSizeLessThanOrEqualTo(1);
    }

    @Test
    void bothRolesShareOneSetWhenTheUrlNamesTheSchema() throws Exception {
        SqlLeaseIssuer a = issuer(roleA, url() + "?currentSchema=public");
        SqlLeaseIssuer b = issuer(roleB, url() + "?currentSchema=public");
        a.acquire("x", TTL, Duration.ZERO).toCompletableFuture().join().orElseThrow();
        assertThat(b.acquire("x", TTL, Duration.ZERO).toCompletableFuture().join()).isEmpty();
    }

    @Test
    void aRunningIssuerRefusesOnceASecondSetAppearsAndServesAgainWhenItIsGone() throws Exception {
        SqlLeaseIssuer a = issuer(roleA, url());
        assertThat(a.acquire("x", TTL, Duration.ZERO).toCompletableFuture().join()).isPresent();
        SqlLeaseIssuer pinned = issuer(roleB, url() + "?currentSchema=" + roleB); // another deployment, by its URL
        pinned.close();
        await().atMost(Duration.ofSeconds(30)).until(() -> a.failingClosed().isPresent());
        assertThat(a.failingClosed().orElseThrow()).contains("more than one schema");
        try (Connection c = DriverManager.getConnection(url(), "postgres", ""); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA " + roleB + " CASCADE");
        }
        await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(a.acquire("y", TTL, Duration.ZERO).toCompletableFuture().join()).isPresent());
        Optional<String> reason = a.failingClosed();
        assertThat(reason).isEmpty();
    }

    private String url() {
        return SERVER + database;
    }

    private SqlLeaseIssuer issuer(String role, String url) {
        SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().jdbcUrl(url).user(role).password("").poolSize(2)
                .durabilityCheckEvery(Duration.ofMillis(200)).build();
        issuers.add(issuer);
        return issuer;
    }
}
