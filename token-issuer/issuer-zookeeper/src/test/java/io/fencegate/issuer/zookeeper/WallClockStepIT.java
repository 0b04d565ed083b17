package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lease lives its ttl in real time, whatever the wall clocks of the gateways that grant and renew
 * it say: the nemesis steps one gateway's wall clock by ten minutes, as an NTP step does.
 */
@Timeout(60)
class WallClockStepIT {
    private TestingServer server;
    private CuratorFramework client;
    private final String root = "/fencegate-clock-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
        client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100));
        client.start();
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.close();
    }

    private ZooKeeperLeaseIssuer issuer(Clock clock) {
        return ZooKeeperLeaseIssuer.builder().client(client).root(root).clock(clock).build();
    }

    private static Optional<Lease> acquire(LeaseIssuer issuer, String lock, Duration ttl) throws Exception {
        return issuer.acquire(lock, ttl, Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * The granting issuer expires its leases; its clock runs ten minutes ahead. A renew through
     * another issuer must still keep the lease for its ttl from the renew.
     */
    @Test
    void aLeaseRenewedElsewhereOutlivesItsGrantingIssuerWhoseClockRunsAhead() throws Exception {
        Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10));
        try (ZooKeeperLeaseIssuer granting = issuer(ahead); ZooKeeperLeaseIssuer elsewhere = issuer(Clock.systemUTC())) {
            Lease lease = acquire(granting, "orders/7", Duration.ofSeconds(3)).orElseThrow();
            Thread.sleep(1500);
            long renewedAt = System.nanoTime();
            assertThat(elsewhere.renew(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).as("renewed").isPresent();
            Thread.sleep(2500); // past the first expiry (3 s after the grant), 2 s before the renewed one

            Optional<Lease> second = acquire(elsewhere, "orders/7", Duration.ofSeconds(3));

            long sinceRenew = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - renewedAt);
            if (sinceRenew < 3000) { // on a machine too loaded to get here in time, the lease may rightly be over
                assertThat(second).as("a second lease %d ms after a renew of a 3 s lease", sinceRenew).isEmpty();
            }
        }
    }

    /**
     * The granting issuer's clock steps ten minutes back after the grant: the lease still ends at
     * its ttl, not ten minutes later (which would hold the lock that long).
     */
    @Test
    void aLeaseEndsAtItsTtlWhenItsGrantingIssuersClockStepsBack() throws Exception {
        SteppedClock stepped = new SteppedClock();
        try (ZooKeeperLeaseIssuer granting = issuer(stepped); ZooKeeperLeaseIssuer elsewhere = issuer(Clock.systemUTC())) {
            long grantedAt = System.nanoTime();
            acquire(granting, "orders/8", Duration.ofSeconds(1)).orElseThrow();
            stepped.offset = Duration.ofMinutes(-10);
            Optional<Lease> second = Optional.empty();
            while (second.isEmpty() && System.nanoTime() - grantedAt < TimeUnit.SECONDS.toNanos(15)) {
                Thread.sleep(100);
                second = acquire(elsewhere, "orders/8", Duration.ofSeconds(1));
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grantedAt);
            assertThat(second).as("granted again within 15 s of a 1 s lease").isPresent();
            assertThat(ms).as("the next grant, after a 1 s lease").isGreaterThanOrEqualTo(1000);
        }
    }

    /** The system clock plus an offset that a test changes while the issuer runs. */
    private static final class SteppedClock extends Clock {
        volatile Duration offset = Duration.ZERO;

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.time.Instant instant() {
            return Clock.systemUTC().instant().plus(offset);
        }
    }
}
