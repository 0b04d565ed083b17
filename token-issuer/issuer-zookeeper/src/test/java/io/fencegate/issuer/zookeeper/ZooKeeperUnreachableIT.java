package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An unreachable ensemble fails calls within the operation timeout, never hangs them. */
@Timeout(60)
class ZooKeeperUnreachableIT {

    private static final Duration OP_TIMEOUT = Duration.ofSeconds(1);

    @Test
    void closedPortFailsEveryCallWithinBoundedTimeAndClearError() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        long start = System.nanoTime();
        try (LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder()
                .connectString("127.0.0.1:" + closedPort)
                .operationTimeout(OP_TIMEOUT)
                .build()) {
            assertUnavailableWithinBound(issuer.acquire("a", Duration.ofSeconds(5), Duration.ZERO));
            assertUnavailableWithinBound(issuer.acquire("a", Duration.ofSeconds(5), Duration.ofSeconds(30)));
            assertUnavailableWithinBound(issuer.wasGranted("a", 42));
            String plausibleId = "zk1." + java.util.Base64.getUrlEncoder().withoutPadding()
                    .encodeToString("/fencegate/locks/YQ/lease-0000000001".getBytes()) + "." + "0".repeat(32);
            assertUnavailableWithinBound(issuer.renew(plausibleId));
            assertUnavailableWithinBound(issuer.release(plausibleId));
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("all calls and close").isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void serverGoingAwayFailsCallsAndIssuerRecoversWhenItReturns() throws Exception {
        try (TestingServer server = new TestingServer(true);
             LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder()
                     .connectString(server.getConnectString())
                     .root("/fencegate-outage-" + UUID.randomUUID().toString().substring(0, 8))
                     .operationTimeout(OP_TIMEOUT)
                     .sessionTimeout(Duration.ofSeconds(30))
                     .build()) {
            Lease before = issuer.acquire("x", Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS).orElseThrow();
            server.stop();
            assertUnavailableWithinBound(issuer.acquire("y", Duration.ofSeconds(5), Duration.ZERO));
            assertUnavailableWithinBound(issuer.renew(before.leaseId()));
            server.restart();
            // Same session (it outlived the outage): the lease survived, and new grants go on.
            Lease renewed = retry(() -> issuer.renew(before.leaseId())).orElseThrow();
            assertThat(renewed.token()).isEqualTo(before.token());
            Lease after = retry(() -> issuer.acquire("y", Duration.ofSeconds(5), Duration.ZERO)).orElseThrow();
            assertThat(after.token()).isGreaterThan(before.token());
        }
    }

    private static <T> T retry(java.util.function.Supplier<CompletionStage<T>> call) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return call.get().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof IssuerUnavailableException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static void assertUnavailableWithinBound(CompletionStage<?> call) throws Exception {
        long start = System.nanoTime();
        try {
            Object answer = call.toCompletableFuture().get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected IssuerUnavailableException, got " + answer);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(IssuerUnavailableException.class)
                    .hasMessageContaining("ZooKeeper");
        }
        // The bound is the operation timeout plus scheduling slack on a busy machine.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(OP_TIMEOUT.multipliedBy(5));
    }
}
