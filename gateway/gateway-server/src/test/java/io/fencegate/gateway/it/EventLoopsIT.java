package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.ReadResult;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.WriteResult;
import io.fencegate.store.files.FilesGuardedStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code server.eventLoops}: the gateway serves on that many event loops, one port. Connections
 * are handed round robin, so a few fresh connections reach the store from every loop.
 */
class EventLoopsIT {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void connectionsAreServedOnEveryEventLoop() throws Exception {
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "event-loops");
        try (TestingServer zookeeper = new TestingServer(true)) {
            var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                    .operationTimeout(Duration.ofSeconds(5)).build();
            var files = FilesGuardedStore.open(dir, GuardRule.STRICT);
            var store = new CallingThreads(files);
            try (GatewayHarness gw = new GatewayHarness(new GatewayOptions().eventLoops(3), issuer,
                    List.of(StoreBinding.of("docs", store)), List.of(issuer, files))) {
                for (int i = 0; i < 9; i++) {
                    int status = gw.raw("GET /v1/stores/docs/items/nothing-" + i + " HTTP/1.1\r\nHost: localhost\r\n"
                            + "Connection: close\r\n\r\n", new byte[0]);
                    assertThat(status).isEqualTo(404);
                }
                assertThat(store.threads).hasSize(3).allMatch(name -> name.startsWith("vert.x-eventloop-thread-"));
                gw.assertEventLoopNeverBlocked();
            }
        } finally {
            try (var all = Files.walk(dir)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Notes which thread calls the store: the event loop that serves the request. */
    private static final class CallingThreads implements GuardedStore {
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        private final GuardedStore store;

        CallingThreads(GuardedStore store) {
            this.store = store;
        }

        private <T> T noted(T result) {
            threads.add(Thread.currentThread().getName());
            return result;
        }

        @Override
        public CompletionStage<WriteResult> write(String key, long token, byte[] value) {
            return noted(store.write(key, token, value));
        }

        @Override
        public CompletionStage<WriteResult> delete(String key, long token) {
            return noted(store.delete(key, token));
        }

        @Override
        public CompletionStage<ReadResult> read(String key) {
            return noted(store.read(key));
        }

        @Override
        public CompletionStage<ReadResult> fencedRead(String key, long token) {
            return noted(store.fencedRead(key, token));
        }

        @Override
        public GuardRule rule() {
            return store.rule();
        }

        @Override
        public StoreLimits limits() {
            return store.limits();
        }

        @Override
        public void close() {
            // The test closes the store it wraps.
        }
    }
}
