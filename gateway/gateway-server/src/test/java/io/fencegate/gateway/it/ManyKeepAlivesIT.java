package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.LeaseKeepAlive;
import io.fencegate.client.LeaseLoss;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thousand leases kept alive by one Java client: every one stays held across several renewal
 * rounds, and the client renews them on a small fixed number of threads (a renewal in flight used
 * to take a thread and a connection of its own, so a round that came due at once took hundreds).
 */
class ManyKeepAlivesIT {
    private static final int LEASES = 1000;
    /** Long enough that a busy 2-core machine renews 1000 leases in time (at 6 s, renewals at load 10 came too late). */
    private static final Duration TTL = Duration.ofSeconds(15);
    /**
     * The keep-alive's timer and 4 renewers, the transport's deadline timer, the client's rescuer and
     * a pool thread or two (8 were made here); one thread per renewal in flight made 280.
     */
    private static final int THREADS_BOUND = 10;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aThousandLeasesStayHeldOnASmallFixedNumberOfClientThreads() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                    .operationTimeout(Duration.ofSeconds(10)).build();
            try (GatewayHarness gw = new GatewayHarness(new GatewayOptions(), issuer, List.of(), List.of(issuer))) {
                FencegateClient client = FencegateClient.builder(gw.uri()).timeout(Duration.ofSeconds(10)).build();
                Set<Long> before = clientThreads().keySet();
                Map<String, LeaseLoss> lost = new ConcurrentHashMap<>();
                List<LeaseKeepAlive> kept = new ArrayList<>();
                try {
                    for (int i = 0; i < LEASES; i++) {
                        Lease lease = client.acquire("many/" + i, TTL, Duration.ZERO).orElseThrow();
                        kept.add(client.keepAlive(lease, TTL, (l, reason) -> lost.put(l.lock(), reason)));
                    }
                    // Past the ttl of every lease, after three renewal rounds (every ttl/3) of all.
                    Thread.sleep(TTL.toMillis() + 2_000);
                    assertThat(lost).as("leases lost").isEmpty();
                    assertThat(kept).allSatisfy(k -> assertThat(k.held()).isTrue());
                    Map<Long, String> made = clientThreads();
                    made.keySet().removeAll(before);
                    System.out.printf("many keep-alives: %d leases kept alive; client threads made: %d %s%n",
                            LEASES, made.size(), made.values().stream().sorted().collect(Collectors.toList()));
                    assertThat(made).as("client threads made to keep %d leases alive", LEASES).hasSizeLessThanOrEqualTo(THREADS_BOUND);
                } finally {
                    for (LeaseKeepAlive k : kept) {
                        k.close();
                    }
                }
                assertThat(lost).isEmpty();
            }
        }
    }

    /** The client library's live threads (they are all named fencegate-…) by id. */
    private static Map<Long, String> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("fencegate-client") || t.getName().startsWith("fencegate-lease"))
                .collect(Collectors.toMap(Thread::getId, Thread::getName, (a, b) -> a, ConcurrentHashMap::new));
    }
}
