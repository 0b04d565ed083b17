package io.fencegate.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.sql.SqlLeaseIssuer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The provider on the SQL issuer against the real PostgreSQL (a schema of its own): its acquire and
 * its release run on two connections, so a lock right after an unlock must wait for the release
 * that unlock sent, or find the lock held by the run that just ended.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqlFencedLockProviderIT {
    private static final String ADMIN = "jdbc:postgresql://127.0.0.1:5432/test";
    private final String schema = "fg_spring_shedlock_" + Integer.toHexString(ThreadLocalRandom.current().nextInt() & 0x7fffffff);
    private SqlLeaseIssuer issuer;
    private FencedLockProvider provider;

    @BeforeEach
    void open() throws Exception {
        admin("CREATE SCHEMA " + schema);
        issuer = SqlLeaseIssuer.builder().jdbcUrl(ADMIN + "?currentSchema=" + schema).user("postgres").poolSize(4).build();
        provider = new FencedLockProvider(issuer);
    }

    @AfterEach
    void close() throws Exception {
        provider.close();
        issuer.close();
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    @Test
    void aJobLockedAgainAtOnceIsGrantedEveryTimeWithAHigherToken() {
        long last = 0;
        for (int run = 0; run < 30; run++) {
            SimpleLock lock = provider.lock(new LockConfiguration(Instant.now(), "report", Duration.ofSeconds(10), Duration.ZERO))
                    .orElseThrow(() -> new AssertionError("the lock was still held by the run before"));
            assertThat(FencedJob.token()).isGreaterThan(last);
            last = FencedJob.token();
            lock.unlock();
        }
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(ADMIN, "postgres", ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
