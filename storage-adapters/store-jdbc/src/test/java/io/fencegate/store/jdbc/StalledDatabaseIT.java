package io.fencegate.store.jdbc;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.StoreUnavailableException;
import io.fencegate.testing.TcpProxy;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A database that stops answering without closing anything (frozen server, dropped packets):
 * calls fail within the configured timeouts with {@link StoreUnavailableException} instead of
 * hanging, and the store works again once the link does.
 */
@Timeout(120)
class StalledDatabaseIT {

    @ParameterizedTest
    @EnumSource(value = TestDatabase.Kind.class, names = {"MARIADB", "POSTGRES"})
    void callsOnAStalledLinkFailWithinTheTimeoutsAndRecover(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase db = TestDatabase.create(kind);
                TcpProxy proxy = TcpProxy.start(db.backend());
                JdbcGuardedStore store = JdbcGuardedStore.open(db.options().jdbcUrl(db.urlVia(proxy.address()))
                        .poolSize(2).connectTimeout(Duration.ofSeconds(2)).queryTimeout(Duration.ofSeconds(2)))) {
            assertThat(await(store.write("k", 1, new byte[] {1}))).isEqualTo(new Applied(0));
            proxy.stall();
            // Bound: query timeout 2 s, socket timeout query + 2 s, connect and validation 2 s each.
            for (int i = 0; i < 2; i++) {
                long t = 2 + i;
                long started = System.nanoTime();
                assertThat(failureOf(() -> store.write("k", t, new byte[] {2}))).isInstanceOf(StoreUnavailableException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
            }
            proxy.restore();
            Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> await(store.write("k", 10, new byte[] {10})) instanceof Applied);
            assertThat(((Found) await(store.read("k"))).token()).isEqualTo(10);
        }
    }
}
