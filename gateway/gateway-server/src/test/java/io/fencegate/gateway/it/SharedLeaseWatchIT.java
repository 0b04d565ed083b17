package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many watchers of one lease on one gateway share one poll of the issuer: the gateway's lease
 * reads grow with the leases watched, not with the watchers, every watcher is still told the end,
 * a watcher that leaves does not stop the others' poll, and the reads stop when the last one goes.
 */
class SharedLeaseWatchIT {
    /** Watchers per lease: unshared, they would read the issuer this many times more often. */
    private static final int WATCHERS = 40;
    /** The gateway's poll interval (LeaseEvents.POLL_MS). */
    private static final long POLL_MS = 100;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void issuerReadsGrowWithWatchedLeasesNotWatchersAndEveryWatcherIsToldTheEnd() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            ReadCountingIssuer issuer = new ReadCountingIssuer(ZooKeeperLeaseIssuer.builder()
                    .connectString(zookeeper.getConnectString()).build());
            List<SseStream> streams = new ArrayList<>();
            try (GatewayHarness gateway = new GatewayHarness(new GatewayOptions(), issuer, List.of(), List.of(issuer))) {
                FencegateClient client = gateway.client();
                Lease expiring = client.acquire("watch/expiring", Duration.ofSeconds(3), Duration.ZERO).orElseThrow();
                Lease released = client.acquire("watch/released", Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
                List<SseStream> onExpiring = open(gateway.uri(), expiring, WATCHERS, streams);
                List<SseStream> onReleased = open(gateway.uri(), released, WATCHERS, streams);

                // Two watched leases, 2 x 40 watchers: each lease is read at most once a poll interval.
                long readsBefore = issuer.finds();
                long from = System.nanoTime();
                Thread.sleep(1500);
                long reads = issuer.finds() - readsBefore;
                long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - from);
                long perLeaseBound = elapsedMs / POLL_MS + 2;
                System.out.printf("shared lease watch: %d issuer reads in %d ms for 2 leases x %d watchers%n",
                        reads, elapsedMs, WATCHERS);
                assertThat(reads).as("reads of 2 leases watched %d times each in %d ms", WATCHERS, elapsedMs)
                        .isPositive().isLessThanOrEqualTo(2 * perLeaseBound);

                // Half the watchers of the expiring lease leave: the others still hear its expiry.
                for (SseStream gone : onExpiring.subList(0, WATCHERS / 2)) {
                    gone.close();
                }
                for (SseStream watcher : onExpiring.subList(WATCHERS / 2, WATCHERS)) {
                    SseStream.Event ended = watcher.await(expiring.expiresAt().toEpochMilli()
                            - System.currentTimeMillis() + 10_000, e -> !e.name().equals("renewed"));
                    assertThat(ended.name()).isEqualTo("expired");
                    assertThat(ended.data().getLong("token")).isEqualTo(expiring.token());
                    assertThat(watcher.closed(5000)).as("the stream closes after the end").isTrue();
                }

                assertThat(client.release(released.leaseId())).isTrue();
                for (SseStream watcher : onReleased) {
                    assertThat(watcher.await(10_000, e -> true).name()).isEqualTo("released");
                    assertThat(watcher.closed(5000)).isTrue();
                }

                // Nothing is watched any more: the gateway stops reading (a read in flight may finish).
                Thread.sleep(2 * POLL_MS);
                long settled = issuer.finds();
                Thread.sleep(5 * POLL_MS);
                assertThat(issuer.finds() - settled).as("reads after every watch ended").isLessThanOrEqualTo(1);
            } finally {
                for (SseStream s : streams) {
                    s.close();
                }
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theLastWatcherToLeaveStopsTheLeasesPollAndANewWatcherStartsAnother() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            ReadCountingIssuer issuer = new ReadCountingIssuer(ZooKeeperLeaseIssuer.builder()
                    .connectString(zookeeper.getConnectString()).build());
            List<SseStream> streams = new ArrayList<>();
            try (GatewayHarness gateway = new GatewayHarness(new GatewayOptions(), issuer, List.of(), List.of(issuer))) {
                FencegateClient client = gateway.client();
                Lease lease = client.acquire("watch/left", Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
                for (SseStream s : open(gateway.uri(), lease, 3, streams)) {
                    s.close();
                }
                Thread.sleep(3 * POLL_MS);
                long settled = issuer.finds();
                Thread.sleep(5 * POLL_MS);
                assertThat(issuer.finds() - settled).as("reads after every watcher left").isLessThanOrEqualTo(1);

                SseStream again = open(gateway.uri(), lease, 1, streams).get(0);
                assertThat(client.release(lease.leaseId())).isTrue();
                assertThat(again.await(10_000, e -> true).name()).isEqualTo("released");
            } finally {
                for (SseStream s : streams) {
                    s.close();
                }
            }
        }
    }

    private static List<SseStream> open(URI gateway, Lease lease, int count, List<SseStream> all) throws Exception {
        List<SseStream> opened = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            SseStream s = SseStream.open(gateway.resolve("/v1/leases/" + lease.leaseId() + "/events"), null);
            opened.add(s);
            all.add(s);
        }
        // The last stream's response head has come: give its join of the poll a moment.
        Thread.sleep(POLL_MS);
        return opened;
    }
}
