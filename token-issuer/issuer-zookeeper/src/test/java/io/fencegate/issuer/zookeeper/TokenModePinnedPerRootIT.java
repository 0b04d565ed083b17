package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
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
 * Issuers in different token modes cannot share a root: their tokens would interleave backwards.
 * Every path obeys the root's pinned mode, not just acquire: in a rolling config change behind a
 * load balancer, a lease taken through one gateway is renewed or released through the other.
 */
@Timeout(60)
class TokenModePinnedPerRootIT {
    private static final Duration IDLE = Duration.ofMillis(300);

    private TestingServer server;
    private final String root = "/fencegate-mode-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private ZooKeeperLeaseIssuer issuer(TokenMode mode) {
        return ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString())
                .root(root).tokenMode(mode).forgetIdleLocksAfter(IDLE).build();
    }

    private static Lease acquire(LeaseIssuer issuer, String lock) throws Exception {
        return issuer.acquire(lock, Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                .get(10, TimeUnit.SECONDS).orElseThrow();
    }

    @Test
    void issuerInTheOtherModeIsRefusedOnAUsedRoot() throws Exception {
        try (LeaseIssuer zxid = issuer(TokenMode.ZXID); LeaseIssuer cversion = issuer(TokenMode.CVERSION)) {
            assertThat(zxid.acquire("l", Duration.ofSeconds(5), Duration.ZERO).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS)).isPresent();
            try {
                cversion.acquire("l2", Duration.ofSeconds(5), Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS);
                throw new AssertionError("a CVERSION issuer acquired on a ZXID root");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("ZXID").hasMessageContaining("CVERSION");
            }
        }
    }

    /**
     * A ZXID issuer's idle sweep deletes lock nodes; on a CVERSION root the lock node is the token
     * counter, and deleting it would start the next token at 1 again.
     */
    @Test
    void cversionTokensKeepIncreasingWhenAZxidIssuerReleasesAndSweepsOnTheRoot() throws Exception {
        try (LeaseIssuer cversion = issuer(TokenMode.CVERSION); LeaseIssuer zxid = issuer(TokenMode.ZXID)) {
            Lease first = acquire(cversion, "orders/1");
            assertThat(cversion.release(first.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            Lease second = acquire(cversion, "orders/1");
            try {
                zxid.release(second.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException refused) {
                // Refusing is one way to obey the pinned mode; the tokens below are the property.
            }
            cversion.release(second.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            Thread.sleep(IDLE.toMillis() * 5); // both issuers' sweeps came due and ran
            Lease third = acquire(cversion, "orders/1");
            assertThat(third.token()).as("token after a release through a ZXID issuer").isGreaterThan(second.token());
        }
    }

    /** Renew and release through an issuer in the other mode are refused like acquire, and change nothing. */
    @Test
    void anIssuerInTheOtherModeCannotRenewOrReleaseOnAPinnedRoot() throws Exception {
        for (TokenMode pinned : TokenMode.values()) {
            TokenMode other = pinned == TokenMode.ZXID ? TokenMode.CVERSION : TokenMode.ZXID;
            try (LeaseIssuer owner = issuer(pinned); LeaseIssuer misconfigured = issuer(other)) {
                Lease lease = acquire(owner, "pinned/" + pinned);
                assertThatThrownBy(() -> misconfigured.renew(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .as("renew through a %s issuer on a %s root", other, pinned)
                        .hasCauseInstanceOf(IllegalStateException.class)
                        .hasMessageContaining(pinned.name()).hasMessageContaining(other.name());
                assertThatThrownBy(() -> misconfigured.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .as("release through a %s issuer on a %s root", other, pinned)
                        .hasCauseInstanceOf(IllegalStateException.class)
                        .hasMessageContaining(pinned.name()).hasMessageContaining(other.name());
                assertThat(owner.renew(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .as("the lease is still held").isPresent();
                assertThat(owner.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            }
            // Each mode on its own root: re-pin for the next round.
            try (CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100))) {
                client.start();
                client.delete().deletingChildrenIfNeeded().forPath(root);
            }
        }
    }
}
