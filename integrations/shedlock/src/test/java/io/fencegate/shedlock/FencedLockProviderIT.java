package io.fencegate.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The provider against a real ZooKeeper (TestingServer), two issuer instances standing for two
 * application instances: exclusion, tokens, keep-alive, loss, lockAtLeastFor, extension.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FencedLockProviderIT {
    private static TestingServer zookeeper;
    private ZooKeeperLeaseIssuer issuerA;
    private ZooKeeperLeaseIssuer issuerB;
    private FencedLockProvider here;
    private FencedLockProvider there;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stop() throws Exception {
        zookeeper.close();
    }

    @BeforeEach
    void providers() {
        String root = "/fg-shedlock-" + ThreadLocalRandom.current().nextInt(1 << 30);
        issuerA = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).root(root).build();
        issuerB = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).root(root).build();
        here = new FencedLockProvider(issuerA);
        there = new FencedLockProvider(issuerB, "", Duration.ofSeconds(10));
    }

    @AfterEach
    void close() {
        here.close();
        there.close();
        issuerA.close();
        issuerB.close();
    }

    private static LockConfiguration job(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    @Test
    void aHeldJobLockIsRefusedElsewhereAndTheNextRunGetsAHigherToken() {
        SimpleLock first = here.lock(job("report", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        long firstToken = FencedJob.token();
        assertThat(there.lock(job("report", Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
        first.unlock();
        assertThat(FencedJob.lease()).isEmpty();

        // unlock returns once the release is sent: elsewhere the lock is free when it has landed.
        // Polled on this thread, where the job's lease is: within the call timeout, not to the millisecond.
        Optional<SimpleLock> second = Optional.empty();
        for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); second.isEmpty() && System.nanoTime() < until; ) {
            second = there.lock(job("report", Duration.ofSeconds(10), Duration.ZERO));
        }
        assertThat(second).isPresent();
        assertThat(FencedJob.token()).isGreaterThan(firstToken);
        second.get().unlock();
    }

    @Test
    void aJobLockedAgainAtOnceInTheSameProcessIsGrantedAfterItsOwnRelease() {
        long last = 0;
        for (int run = 0; run < 50; run++) {
            SimpleLock lock = here.lock(job("every-ms", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
            assertThat(FencedJob.token()).isGreaterThan(last);
            last = FencedJob.token();
            lock.unlock();
        }
    }

    @Test
    void closeWaitsForTheReleasesOnTheirWaySoOthersFindTheLockFree() {
        here.lock(job("closing", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow().unlock();
        here.close();
        SimpleLock next = there.lock(job("closing", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        next.unlock();
    }

    @Test
    void theJobReadsItsTokenThroughShedLocksExecutorAndLockAssertHolds() {
        List<Long> tokens = new ArrayList<>();
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(here);
        for (int run = 0; run < 3; run++) {
            executor.executeWithLock((Runnable) () -> {
                LockAssert.assertLocked();
                tokens.add(FencedJob.token());
                LockExtender.extendActiveLock(Duration.ofSeconds(5), Duration.ZERO); // same lease, same token
                tokens.add(FencedJob.token());
            }, job("nightly", Duration.ofSeconds(5), Duration.ZERO));
        }
        assertThat(tokens).hasSize(6);
        assertThat(tokens.get(0)).isEqualTo(tokens.get(1));
        assertThat(tokens.get(2)).isGreaterThan(tokens.get(1)).isEqualTo(tokens.get(3));
        assertThat(tokens.get(4)).isGreaterThan(tokens.get(3));
        assertThatThrownBy(FencedJob::token).isInstanceOf(IllegalStateException.class).hasMessageContaining("@SchedulerLock");
    }

    @Test
    void aRunningJobKeepsItsLockPastTheTtlBecauseTheLeaseIsRenewed() throws Exception {
        SimpleLock lock = here.lock(job("long-job", Duration.ofMillis(600), Duration.ZERO)).orElseThrow();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2500); // four ttls
        while (System.nanoTime() < deadline) {
            assertThat(there.lock(job("long-job", Duration.ofMillis(600), Duration.ZERO))).isEmpty();
            Thread.sleep(100);
        }
        assertThat(FencedJob.lease().orElseThrow().isLost()).isFalse();
        lock.unlock();
    }

    @Test
    void aLeaseThatEndsUnderTheJobIsReportedLostAndUnlockDoesNotFail() {
        SimpleLock lock = here.lock(job("lost-job", Duration.ofMillis(600), Duration.ZERO)).orElseThrow();
        FencedLease lease = FencedJob.lease().orElseThrow();
        // The lease ends without the job's knowledge (as after a long pause): the next renew finds it gone.
        assertThat(issuerB.release(lease.leaseId()).toCompletableFuture().join()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(lease::isLost);
        assertThatThrownBy(FencedJob::checkHeld).isInstanceOf(LeaseLostException.class).hasMessageContaining("lost-job");
        assertThat(lock.extend(Duration.ofSeconds(1), Duration.ZERO)).isEmpty();
        lock.unlock();
        SimpleLock next = there.lock(job("lost-job", Duration.ofSeconds(5), Duration.ZERO)).orElseThrow();
        assertThat(FencedJob.token()).isGreaterThan(lease.token());
        next.unlock();
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterUnlockUntilItHasPassed() {
        Instant created = Instant.now();
        here.lock(new LockConfiguration(created, "at-least", Duration.ofSeconds(5), Duration.ofMillis(1500)))
                .orElseThrow().unlock();
        assertThat(there.lock(job("at-least", Duration.ofSeconds(5), Duration.ZERO))).isEmpty();
        Optional<SimpleLock> after = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> there.lock(job("at-least", Duration.ofSeconds(5), Duration.ZERO)), Optional::isPresent);
        assertThat(Duration.between(created, Instant.now())).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        after.get().unlock();
    }

    @Test
    void anExtendedLockHandsOverAndTheOldOneCannotUnlock() {
        SimpleLock lock = here.lock(job("extended", Duration.ofSeconds(5), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(5), Duration.ZERO).orElseThrow();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        extended.unlock();
        assertThat(FencedJob.lease()).isEmpty();
    }

    @Test
    void aLockAtMostForShorterThanALeaseCanBeIsRefusedNamingTheJob() {
        assertThatThrownBy(() -> here.lock(job("too-short", Duration.ofMillis(20), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too-short").hasMessageContaining("lockAtMostFor");
    }
}
