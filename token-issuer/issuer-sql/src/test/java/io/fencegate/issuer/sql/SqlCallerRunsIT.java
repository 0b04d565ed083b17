package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.Lease;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A caller that blocks on an acquire or a release runs its statements on its own thread, with no
 * hand-off to the issuer's threads and back; a caller that chains on the stage never does, and
 * neither does one whose wait is shorter than the issuer's own timeouts.
 */
class SqlCallerRunsIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    @ParameterizedTest
    @EnumSource(value = SqlTestDatabase.Kind.class, names = {"POSTGRES", "MARIADB"})
    void blockingCallersRunTheirOwnCallsAndChainingCallersNever(SqlTestDatabase.Kind kind) throws Exception {
        try (SqlTestDatabase db = SqlTestDatabase.create(kind); HikariDataSource pool = pool(db)) {
            Set<Thread> connecting = ConcurrentHashMap.newKeySet();
            try (SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().dataSource(recording(pool, connecting)).build()) {
                // The issuer's thread may start a call before its caller blocks (a busy host): some of 20 pairs show it.
                boolean acquiredHere = false;
                boolean releasedHere = false;
                for (int i = 0; i < 20 && !(acquiredHere && releasedHere); i++) {
                    connecting.clear();
                    Lease lease = issuer.acquire("caller-runs", TTL, Duration.ZERO).toCompletableFuture().get(30, TimeUnit.SECONDS)
                            .orElseThrow();
                    acquiredHere |= connecting.contains(Thread.currentThread());
                    connecting.clear();
                    assertThat(issuer.release(lease.leaseId()).toCompletableFuture().join()).isTrue();
                    releasedHere |= connecting.contains(Thread.currentThread());
                }
                assertThat(acquiredHere).as("a blocking acquire ran on its caller's thread").isTrue();
                assertThat(releasedHere).as("a blocking release ran on its caller's thread").isTrue();

                // A caller that chains never runs a statement itself.
                connecting.clear();
                CountDownLatch done = new CountDownLatch(1);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                issuer.acquire("caller-runs", TTL, Duration.ZERO)
                        .thenCompose(l -> issuer.release(l.orElseThrow().leaseId()))
                        .whenComplete((released, error) -> {
                            failure.set(error);
                            done.countDown();
                        });
                assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(failure.get()).isNull();
                assertThat(connecting).isNotEmpty().doesNotContain(Thread.currentThread());

                // A wait shorter than the issuer's connect and statement timeouts is the caller's to keep.
                connecting.clear();
                Lease shortWait = issuer.acquire("caller-runs", TTL, Duration.ZERO).toCompletableFuture().get(9, TimeUnit.SECONDS)
                        .orElseThrow();
                assertThat(connecting).doesNotContain(Thread.currentThread());
                assertThat(issuer.release(shortWait.leaseId()).toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    private static HikariDataSource pool(SqlTestDatabase db) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }

    /** {@code target}, noting the thread of each connection taken. */
    private static DataSource recording(DataSource target, Set<Thread> threads) {
        return (DataSource) Proxy.newProxyInstance(SqlCallerRunsIT.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        threads.add(Thread.currentThread());
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
