package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.IssuerUnavailableException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The grant step of one acquire: it runs at most once, and a failed grant ends the acquire. */
@Timeout(60)
class AcquisitionGrantIT {

    private EngineTestbed bed;
    private CuratorFramework client;
    private final String root = "/fencegate-grant-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() throws Exception {
        bed = new EngineTestbed();
        client = bed.client;
    }

    @AfterEach
    void stop() throws Exception {
        bed.close();
    }

    /**
     * A grant that fails (here: its grant log cannot be written) must not leave the acquire open to
     * a second grant. The driver plays a watcher whose queue check found this node first, at the
     * worst moment: right after the failure, before the acquire answered.
     */
    @Test
    void aFailedGrantIsFinalAndNeverStartsASecondGrant() throws Exception {
        LockNodes nodes = new LockNodes(root);
        IssuerParts parts = bed.parts(root, TokenMode.ZXID);
        String lock = "orders/1";
        // An ephemeral node where the lock's grants parent belongs: recording any grant fails.
        client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(nodes.grantsPath(lock));

        AtomicInteger failedGrants = new AtomicInteger();
        AtomicReference<Acquisition> acquisitionRef = new AtomicReference<>();
        AcquisitionDriver driver = new AcquisitionDriver(parts, new LockDelays(parts), null) {
            @Override
            void grantFailed(String failedLock, Throwable error) {
                if (failedGrants.incrementAndGet() == 1) {
                    acquisitionRef.get().grant();
                }
            }
        };
        Acquisition acquisition = new Acquisition(parts, lock, 10_000, 0, 0, driver);
        acquisitionRef.set(acquisition);
        assertThatThrownBy(() -> acquisition.start().get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IssuerUnavailableException.class).hasMessageContaining("record grant");
        Thread.sleep(500); // a second grant, had one started, has failed by now too
        assertThat(failedGrants).as("grants run by one acquire").hasValue(1);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(client.getChildren().forPath(nodes.lockPath(lock))).as("lease node removed").isEmpty());
    }
}
