package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issuers in different token modes cannot share a root: their tokens would interleave backwards. */
@Timeout(60)
class TokenModePinnedPerRootIT {

    @Test
    void issuerInTheOtherModeIsRefusedOnAUsedRoot() throws Exception {
        String root = "/fencegate-mode-" + UUID.randomUUID().toString().substring(0, 8);
        try (TestingServer server = new TestingServer(true);
             LeaseIssuer zxid = ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString())
                     .root(root).tokenMode(TokenMode.ZXID).build();
             LeaseIssuer cversion = ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString())
                     .root(root).tokenMode(TokenMode.CVERSION).build()) {
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
}
