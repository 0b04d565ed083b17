package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.testing.GatewayProcess;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code GET /v1/leases/{leaseId}/events} served by a gateway other than the one that granted the
 * lease: a holder that stops renewing (paused past its ttl) is told {@code expired} within a bound,
 * a release is told {@code released}, and when the gateway holding the ZooKeeper session is killed
 * the watcher on the other gateway is told {@code lost}. Prints the measured lateness.
 */
class LeaseEventsIT {
    /** Poll interval plus a read and scheduling slack on a busy 2-core machine. */
    private static final long BOUND_MS = 1500;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onZooKeeperAHolderPausedPastItsTtlIsToldWithinABoundThroughAnotherGateway() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            Supplier<LeaseIssuer> issuers = () -> ZooKeeperLeaseIssuer.builder()
                    .connectString(zookeeper.getConnectString()).build();
            pausedHolderAndReleaseAreTold("zookeeper", issuers);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onRedisAHolderPausedPastItsTtlIsToldWithinABoundThroughAnotherGateway() throws Exception {
        String prefix = "fg-events-" + UUID.randomUUID() + ":";
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "events-hwm");
        try {
            Supplier<LeaseIssuer> issuers = () -> new RedisLeaseIssuer(new RedisIssuerOptions()
                    .uri("redis://127.0.0.1:6379").keyPrefix(prefix)
                    .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.hwm"))));
            pausedHolderAndReleaseAreTold("redis", issuers);
        } finally {
            try (var redis = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379"); var c = redis.connect()) {
                var keys = c.sync().keys(prefix + "*");
                if (!keys.isEmpty()) {
                    c.sync().del(keys.toArray(String[]::new));
                }
            }
            deleteTree(dir);
        }
    }

    private static void pausedHolderAndReleaseAreTold(String issuerName, Supplier<LeaseIssuer> issuers)
            throws Exception {
        LeaseIssuer issuerA = issuers.get();
        LeaseIssuer issuerB = issuers.get();
        try (GatewayHarness a = new GatewayHarness(new GatewayOptions(), issuerA, List.of(), List.of(issuerA));
                GatewayHarness b = new GatewayHarness(new GatewayOptions(), issuerB, List.of(), List.of(issuerB))) {
            FencegateClient holder = a.client();
            Lease lease = holder.acquire("events/paused", Duration.ofMillis(2000), Duration.ZERO).orElseThrow();
            try (EventStream watch = EventStream.open(b.uri(), lease.leaseId())) {
                // Renewed a moment later, as a keep-alive at ttl/3 would: a renew within the watcher's
                // jitter allowance (25 ms) of the grant moves the expiry too little to be reported.
                Thread.sleep(300);
                assertThat(holder.renew(lease.leaseId())).isPresent();
                Event renewed = watch.next(3000);
                assertThat(renewed.name).isEqualTo("renewed");
                long expiresAt = renewed.data.getLong("expiresAt");
                assertThat(expiresAt).isGreaterThan(lease.expiresAt().toEpochMilli());

                // The holder pauses past its ttl: no more renews.
                Event ended = watch.next(expiresAt - System.currentTimeMillis() + BOUND_MS);
                assertThat(ended.name).isEqualTo("expired");
                assertThat(ended.data.getLong("token")).isEqualTo(lease.token());
                long lateMs = ended.receivedAt - expiresAt;
                System.out.printf("lease-events %s: expiry told %d ms after the lease's expiresAt%n", issuerName, lateMs);
                assertThat(lateMs).isBetween(-50L, BOUND_MS);
                assertThat(watch.closed(2000)).as("the stream closes after the end").isTrue();
                // The holder wakes up: its renew is refused, and the watcher had already been told.
                assertThat(holder.renew(lease.leaseId())).isEmpty();
            }

            Lease released = holder.acquire("events/released", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
            try (EventStream watch = EventStream.open(b.uri(), released.leaseId())) {
                long at = System.currentTimeMillis();
                assertThat(holder.release(released.leaseId())).isTrue();
                Event ended = watch.next(BOUND_MS);
                assertThat(ended.name).isEqualTo("released");
                System.out.printf("lease-events %s: release told %d ms after the release call%n", issuerName,
                        ended.receivedAt - at);
                assertThat(watch.closed(2000)).isTrue();
            }

            var gone = b.send(b.request("/v1/leases/" + released.leaseId() + "/events").GET());
            assertThat(gone.statusCode()).as("a watch on an ended lease").isEqualTo(410);
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void killingTheGatewayThatHoldsTheSessionEndsTheLeaseAndTheOtherGatewaysWatcherIsTold() throws Exception {
        try (KillableGatewayPair pair = KillableGatewayPair.start("events-killed", "")) {
            GatewayProcess a = pair.a;
            GatewayHarness b = pair.b;
            FencegateClient viaA = pair.viaA;
            // A ttl far past the session timeout: only the session's end can end this lease.
            Lease lease = viaA.acquire("events/killed", Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
            try (EventStream watch = EventStream.open(b.uri(), lease.leaseId())) {
                long killedAt = System.currentTimeMillis();
                a.kill();
                Event ended = watch.next(30_000);
                assertThat(ended.name).isEqualTo("lost");
                assertThat(ended.data.getLong("token")).isEqualTo(lease.token());
                long ms = ended.receivedAt - killedAt;
                System.out.printf("lease-events zookeeper: SIGKILL of the holding gateway told as lost after %d ms "
                        + "(session timeout 4000 ms)%n", ms);
                assertThat(ms).isLessThan(4000 + 2 * 2000 + BOUND_MS);
            }
            assertThat(b.client().renew(lease.leaseId())).isEmpty();
        }
    }

    static void deleteTree(Path dir) throws Exception {
        try (var all = Files.walk(dir)) {
            all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    record Event(String name, JsonObject data, long receivedAt) { }

    /** A server-sent-events reader on its own thread; events arrive in a queue with their arrival time. */
    static final class EventStream implements AutoCloseable {
        private static final Event END = new Event("<closed>", new JsonObject(), 0);
        private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        private final HttpClient http = HttpClient.newHttpClient();
        private final java.util.concurrent.CompletableFuture<?> reading;

        private EventStream(URI gateway, String leaseId) throws Exception {
            HttpRequest request = HttpRequest.newBuilder(gateway.resolve("/v1/leases/" + leaseId + "/events"))
                    .header("Accept", "text/event-stream").GET().build();
            java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
            this.reading = http.sendAsync(request, HttpResponse.BodyHandlers.ofLines()).thenAccept(response -> {
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
                String name = null;
                for (var it = response.body().iterator(); it.hasNext(); ) {
                    String line = it.next();
                    if (line.startsWith(": watching")) {
                        open.countDown();
                    } else if (line.startsWith("event: ")) {
                        name = line.substring(7);
                    } else if (line.startsWith("data: ") && name != null) {
                        events.add(new Event(name, new JsonObject(line.substring(6)), System.currentTimeMillis()));
                        name = null;
                    }
                }
                events.add(END);
            });
            if (!open.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the event stream did not open: " + reading);
            }
        }

        static EventStream open(URI gateway, String leaseId) throws Exception {
            return new EventStream(gateway, leaseId);
        }

        Event next(long timeoutMs) throws InterruptedException {
            Event event = events.poll(Math.max(1, timeoutMs), TimeUnit.MILLISECONDS);
            assertThat(event).as("an event within %d ms", timeoutMs).isNotNull();
            assertThat(event).as("an event before the stream closed").isNotSameAs(END);
            return event;
        }

        boolean closed(long timeoutMs) throws InterruptedException {
            return events.poll(timeoutMs, TimeUnit.MILLISECONDS) == END;
        }

        @Override
        public void close() {
            reading.cancel(true);
        }
    }
}
