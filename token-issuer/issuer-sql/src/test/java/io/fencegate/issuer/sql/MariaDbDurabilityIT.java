package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.testing.MariaDbServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's redo-log flush is a global setting no session can force: with
 * {@code innodb_flush_log_at_trx_commit} at 0 or 2 an acknowledged grant can be lost in a crash, so
 * the issuer refuses to grant, says why, and grants again once the setting is fixed. On a MariaDB
 * server of the test's own (the setting is global).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MariaDbDurabilityIT {

    @Test
    void aRedoLogNotFlushedAtCommitIsRefusedWithTheReasonAndServedAgainOnceFixed() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "mariadb-durability");
        try (MariaDbServer server = MariaDbServer.start(dir)) {
            for (int flush : new int[] {0, 2}) {
                refusedUntilFixed(server, flush);
            }
        } finally {
            PostgresDurabilityIT.deleteTree(dir);
        }
    }

    private static void refusedUntilFixed(MariaDbServer server, int flush) throws Exception {
        setFlush(server, flush);
        try (SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().jdbcUrl(server.jdbcUrl()).user(server.user()).password("")
                .poolSize(3).durabilityCheckEvery(Duration.ofMillis(200)).build()) {
            PostgresDurabilityIT.assertRefused(issuer, "innodb_flush_log_at_trx_commit = " + flush);
            setFlush(server, 1);
            await().ignoreExceptions().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                    issuer.acquire("fixed", Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture().join()).isPresent());
            assertThat(issuer.failingClosed()).isEmpty();
            // Changed back while it serves: the next check refuses again.
            setFlush(server, flush);
            await().atMost(Duration.ofSeconds(30)).until(() -> issuer.failingClosed().isPresent());
            setFlush(server, 1);
        }
    }

    private static void setFlush(MariaDbServer server, int value) throws Exception {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(), ""); Statement s = c.createStatement()) {
            s.execute("SET GLOBAL innodb_flush_log_at_trx_commit = " + value);
        }
    }
}
