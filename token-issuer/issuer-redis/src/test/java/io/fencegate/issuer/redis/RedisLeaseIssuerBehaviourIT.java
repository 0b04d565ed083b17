package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.backend.LeaseIdFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Redis-specific lease behaviour against the shared 127.0.0.1:6379, under a random key prefix. */
@Timeout(60)
class RedisLeaseIssuerBehaviourIT {

    @TempDir
    Path dir;

    private String prefix;
    private RedisLeaseIssuer issuer;
    private RedisLeaseIssuer other;

    @BeforeEach
    void setUp() {
        prefix = RedisTestPrefix.random();
        issuer = newIssuer();
        other = newIssuer();
    }

    @AfterEach
    void tearDown() {
        issuer.close();
        other.close();
        RedisTestPrefix.deleteKeys(RedisTestPrefix.SHARED_URI, prefix);
    }

    private RedisLeaseIssuer newIssuer() {
        return new RedisLeaseIssuer(new RedisIssuerOptions()
                .uri(RedisTestPrefix.SHARED_URI)
                .keyPrefix(prefix)
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark"))));
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    /**
     * A read lease's lock-delay: once it expired unreleased it holds writers off for the delay, as a
     * write lease's does, but not readers (they do not need the stale reader to have stopped); a
     * released read lease leaves no delay. Listings show read leases with their granting instance.
     */
    @Test
    void anExpiredReadLeaseHoldsWritersOffForItsLockDelayAndAReleasedOneDoesNot() throws Exception {
        Lease stale = await(issuer.acquire("rd", LeaseMode.READ, Duration.ofMillis(500), Duration.ZERO, Duration.ofSeconds(20)))
                .orElseThrow();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> await(other.find(stale.leaseId())).isEmpty());
        assertThat(await(other.acquire("rd", Duration.ofSeconds(10), Duration.ZERO))).as("within the delay").isEmpty();
        Lease reader = await(other.acquire("rd", LeaseMode.READ, Duration.ofSeconds(10), Duration.ZERO, Duration.ZERO)).orElseThrow();
        assertThat(reader.token()).isGreaterThan(stale.token());
        assertThat(await(other.list("rd", null, 10)).leases()).singleElement()
                .satisfies(info -> {
                    assertThat(info.mode()).isEqualTo(LeaseMode.READ);
                    assertThat(info.token()).isEqualTo(reader.token());
                    assertThat(info.grantedBy()).isNotEmpty();
                });
        assertThat(await(other.release(reader.leaseId()))).isTrue();
        assertThat(await(other.acquire("rd", Duration.ofSeconds(10), Duration.ZERO))).as("the stale reader's delay").isEmpty();

        Lease released = await(issuer.acquire("rd2", LeaseMode.READ, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(20)))
                .orElseThrow();
        assertThat(await(issuer.release(released.leaseId()))).isTrue();
        assertThat(await(other.acquire("rd2", Duration.ofSeconds(10), Duration.ZERO))).as("a release leaves no delay").isPresent();
    }

    /** A slot's lock is an ordinary lock: a plain lease on it takes that permit away, never one too many. */
    @Test
    void aPlainLeaseOnASlotsLockTakesThatPermitAway() throws Exception {
        Lease plain = await(issuer.acquire("pool/0", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        Lease permit = await(other.acquirePermit("pool", 2, Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        assertThat(permit.slot()).isEqualTo(1);
        assertThat(await(other.acquirePermit("pool", 2, Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
        CompletableFuture<Optional<Lease>> waiter = other.acquirePermit("pool", 2, Duration.ofSeconds(10), Duration.ofSeconds(15))
                .toCompletableFuture();
        assertThat(await(issuer.release(plain.leaseId()))).isTrue();
        Lease next = waiter.get(20, TimeUnit.SECONDS).orElseThrow();
        assertThat(next.slot()).isZero();
        assertThat(next.token()).isGreaterThan(plain.token());
    }

    @Test
    void heldLockConsumesNoToken() throws Exception {
        Lease first = await(issuer.acquire("a", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        String counterBefore = RedisTestPrefix.get(RedisTestPrefix.SHARED_URI, prefix + "token-counter");
        assertThat(await(other.acquire("a", Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
        assertThat(await(issuer.acquire("a", Duration.ofSeconds(10), Duration.ZERO))).isEmpty();
        assertThat(RedisTestPrefix.get(RedisTestPrefix.SHARED_URI, prefix + "token-counter")).isEqualTo(counterBefore);
        assertThat(await(issuer.release(first.leaseId()))).isTrue();
        Lease second = await(other.acquire("a", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        assertThat(second.token()).isEqualTo(first.token() + 1);
    }

    @Test
    void anotherIssuerInstanceRenewsAndReleasesByLeaseId() throws Exception {
        Lease lease = await(issuer.acquire("b", Duration.ofMillis(500), Duration.ZERO)).orElseThrow();
        Lease renewed = await(other.renew(lease.leaseId())).orElseThrow();
        assertThat(renewed.token()).isEqualTo(lease.token());
        assertThat(renewed.lock()).isEqualTo("b");
        assertThat(renewed.expiresAt()).isGreaterThanOrEqualTo(lease.expiresAt());
        assertThat(await(other.release(lease.leaseId()))).isTrue();
        assertThat(await(issuer.release(lease.leaseId()))).isFalse();
        assertThat(await(issuer.renew(lease.leaseId()))).isEmpty();
    }

    @Test
    void wrongOrGarbageLeaseIdsAreRefused() throws Exception {
        Lease lease = await(issuer.acquire("c", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        String forged = LeaseIds.FORMAT.format("c", LeaseIdFormat.newSecret());
        for (String bad : List.of("", "garbage", forged, lease.leaseId() + "x", lease.leaseId().replace("rl1.", "rl1.x"))) {
            assertThat(await(issuer.renew(bad))).as(bad).isEmpty();
            assertThat(await(issuer.release(bad))).as(bad).isFalse();
        }
        assertThat(await(issuer.renew(lease.leaseId()))).isPresent();
    }

    @Test
    void waiterIsGrantedWhenTheHolderReleases() throws Exception {
        Lease held = await(issuer.acquire("d", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        CompletableFuture<Optional<Lease>> waiter = other.acquire("d", Duration.ofSeconds(5), Duration.ofSeconds(15))
                .toCompletableFuture();
        Thread.sleep(300);
        assertThat(waiter).isNotDone();
        await(issuer.release(held.leaseId()));
        Lease next = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(next.token()).isGreaterThan(held.token());
    }

    /**
     * A release PUBLISHes only when a caller marked the lock while waiting for it. The waiter must
     * still be woken by the message, not by its backoff poll: the release is seen on the channel.
     */
    @Test
    void aReleasePublishesAWakeUpOnlyWhenACallerWaits() throws Exception {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(RedisTestPrefix.SHARED_URI);
        try (var pubsub = client.connectPubSub()) {
            java.util.concurrent.BlockingQueue<String> published = new java.util.concurrent.LinkedBlockingQueue<>();
            pubsub.addListener(new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String lock) {
                    published.add(lock);
                }
            });
            pubsub.sync().subscribe(prefix + "released");
            for (int i = 0; i < 5; i++) {
                Lease alone = await(issuer.acquire("quiet", Duration.ofSeconds(10), Duration.ofSeconds(5))).orElseThrow();
                assertThat(await(issuer.release(alone.leaseId()))).isTrue();
            }
            Lease held = await(issuer.acquire("busy", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = other.acquire("busy", Duration.ofSeconds(5), Duration.ofSeconds(30))
                    .toCompletableFuture();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> RedisTestPrefix.get(RedisTestPrefix.SHARED_URI, prefix + "waiters:busy") != null);
            assertThat(await(issuer.release(held.leaseId()))).isTrue();
            // messages on one channel arrive in order: the uncontended releases sent none before it
            assertThat(published.poll(10, TimeUnit.SECONDS)).isEqualTo("busy");
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isPresent();
        } finally {
            client.shutdown();
        }
    }

    /**
     * A release wakes only an issuer's longest waiting caller, so the others rely on the lock being
     * marked again: the woken caller's grant marks it for as long as its lease may live (a waiter's
     * own "held" mark would live only its remaining wait), and its release wakes the next caller.
     */
    @Test
    void aGrantWhileOthersWaitMarksTheLockSoItsReleaseWakesTheNext() throws Exception {
        Lease held = await(issuer.acquire("queue", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        CompletableFuture<Optional<Lease>> first = other.acquire("queue", Duration.ofSeconds(30), Duration.ofSeconds(5))
                .toCompletableFuture();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> RedisTestPrefix.get(RedisTestPrefix.SHARED_URI, prefix + "waiters:queue") != null);
        CompletableFuture<Optional<Lease>> second = other.acquire("queue", Duration.ofSeconds(30), Duration.ofSeconds(5))
                .toCompletableFuture();
        Thread.sleep(200);

        assertThat(await(issuer.release(held.leaseId()))).isTrue();
        Lease next = first.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(second).isNotDone();
        assertThat(pttl(prefix + "waiters:queue")).as("marked for the lease's ttl, not a waiter's 5 s")
                .isGreaterThan(10_000);

        assertThat(await(other.release(next.leaseId()))).isTrue();
        assertThat(second.get(10, TimeUnit.SECONDS)).isPresent();
    }

    /**
     * A short wait's "held" answers must not cut short a longer mark (a grant's made while others
     * wait, or a longer wait's at another issuer), which stands for callers that a release must wake.
     */
    @Test
    void aShortWaitDoesNotShortenALongerWaitersMark() throws Exception {
        Lease held = await(issuer.acquire("marked", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(RedisTestPrefix.SHARED_URI);
        try (var connection = client.connect()) {
            connection.sync().set(prefix + "waiters:marked", "1", io.lettuce.core.SetArgs.Builder.px(60_000));
        } finally {
            client.shutdown();
        }
        // polls until its 300 ms are up; each of its "held" answers would mark the lock for about 0.5 s
        assertThat(await(other.acquire("marked", Duration.ofSeconds(30), Duration.ofMillis(300)))).isEmpty();
        assertThat(pttl(prefix + "waiters:marked")).as("the longer mark").isGreaterThan(50_000);
        assertThat(await(issuer.release(held.leaseId()))).isTrue();
    }

    private static long pttl(String key) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(RedisTestPrefix.SHARED_URI);
        try (var connection = client.connect()) {
            return connection.sync().pttl(key);
        } finally {
            client.shutdown();
        }
    }

    /** The grant log is trimmed in batches; the newest grantsKeptPerLock grants are always known. */
    @Test
    void wasGrantedKnowsTheNewestGrantsThroughEveryTrim() throws Exception {
        int kept = 16;
        try (RedisLeaseIssuer granting = new RedisLeaseIssuer(new RedisIssuerOptions().uri(RedisTestPrefix.SHARED_URI)
                .keyPrefix(prefix).grantsKeptPerLock(kept).highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark"))))) {
            List<Long> tokens = new java.util.ArrayList<>();
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(RedisTestPrefix.SHARED_URI);
            try (var connection = client.connect()) {
                for (int i = 0; i < 5 * kept; i++) {
                    Lease lease = await(granting.acquire("log", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
                    tokens.add(lease.token());
                    assertThat(await(granting.release(lease.leaseId()))).isTrue();
                    // what wasGranted reads on an issuer that has no cached answer
                    List<Long> logged = connection.sync().zrangeWithScores(prefix + "grants:log", 0, -1).stream()
                            .map(scored -> (long) scored.getScore()).toList();
                    assertThat(logged).as("after %d grants", tokens.size())
                            .containsAll(tokens.subList(Math.max(0, tokens.size() - kept), tokens.size()))
                            .hasSizeLessThanOrEqualTo(kept + kept / 8);
                }
            } finally {
                client.shutdown();
            }
            // 'other' never saw these grants, so it asks Redis
            assertThat(await(other.wasGranted("log", tokens.get(tokens.size() - kept)))).isTrue();
            assertThat(await(other.wasGranted("log", tokens.get(0)))).as("the oldest grant is forgotten").isFalse();
        }
    }

    @Test
    void waiterIsGrantedWhenTheHolderExpires() throws Exception {
        Lease held = await(issuer.acquire("e", Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
        Lease next = await(other.acquire("e", Duration.ofSeconds(5), Duration.ofSeconds(10))).orElseThrow();
        assertThat(next.token()).isGreaterThan(held.token());
    }

    @Test
    void waitRunsOutWithEmptyInBoundedTime() throws Exception {
        await(issuer.acquire("f", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        long start = System.nanoTime();
        assertThat(await(other.acquire("f", Duration.ofSeconds(5), Duration.ofMillis(400)))).isEmpty();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(tookMs).isBetween(390L, 10_000L);
    }

    @Test
    void expiredLeaseIsToldToListenersButAReleasedOneIsNot() throws Exception {
        List<String> ended = new CopyOnWriteArrayList<>();
        issuer.addListener((lease, reason) -> ended.add(lease.lock() + ":" + reason));
        await(issuer.acquire("g", Duration.ofMillis(200), Duration.ZERO)).orElseThrow();
        Lease released = await(issuer.acquire("h", Duration.ofMillis(200), Duration.ZERO)).orElseThrow();
        await(other.release(released.leaseId())); // released through another instance
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ended.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Thread.sleep(400);
        assertThat(ended).containsExactly("g:" + LeaseEnd.EXPIRED);
    }

    @Test
    void renewedLeaseIsNotReportedExpired() throws Exception {
        List<LeaseEnd> ended = new CopyOnWriteArrayList<>();
        issuer.addListener((lease, reason) -> ended.add(reason));
        // Renewed well inside its ttl (a busy machine may stall a renewal for a while), until it has lived
        // twice the ttl.
        Lease lease = await(issuer.acquire("i", Duration.ofMillis(1500), Duration.ZERO)).orElseThrow();
        for (int i = 0; i < 6; i++) {
            Thread.sleep(500);
            assertThat(await(other.renew(lease.leaseId()))).isPresent();
        }
        assertThat(ended).isEmpty();
        assertThat(await(issuer.release(lease.leaseId()))).isTrue();
    }

    @Test
    void wasGrantedKnowsGrantsFromAnyInstanceAndNothingElse() throws Exception {
        Lease lease = await(issuer.acquire("j", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        assertThat(await(issuer.wasGranted("j", lease.token()))).isTrue();
        assertThat(await(other.wasGranted("j", lease.token()))).isTrue();
        assertThat(await(other.wasGranted("other-lock", lease.token()))).isFalse();
        assertThat(await(other.wasGranted("j", lease.token() + 1))).isFalse();
        assertThat(await(other.wasGranted("j", Long.MAX_VALUE))).isFalse();
        assertThat(await(other.wasGranted("j", 0))).isFalse();
    }

    @Test
    void contendedLockHasOneHolderAtATimeAndTokensRiseInGrantOrder() throws Exception {
        java.util.concurrent.atomic.AtomicInteger holders = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger maxHolders = new java.util.concurrent.atomic.AtomicInteger();
        List<Long> grantOrder = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(6);
        List<java.util.concurrent.Future<?>> workers = new java.util.ArrayList<>();
        for (int t = 0; t < 6; t++) {
            RedisLeaseIssuer by = t % 2 == 0 ? issuer : other;
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 10; i++) {
                    Lease lease = await(by.acquire("contended", Duration.ofSeconds(10), Duration.ofSeconds(20))).orElseThrow();
                    maxHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
                    grantOrder.add(lease.token());
                    holders.decrementAndGet();
                    assertThat(await(by.release(lease.leaseId()))).isTrue();
                }
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> worker : workers) {
            worker.get(50, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(maxHolders.get()).isEqualTo(1);
        assertThat(grantOrder).hasSize(60).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    }

    @Test
    void closeReleasesTheLeasesItGranted() throws Exception {
        RedisLeaseIssuer closing = newIssuer();
        Lease lease = await(closing.acquire("k", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        closing.close();
        assertThat(await(issuer.acquire("k", Duration.ofSeconds(30), Duration.ZERO))).isPresent();
        assertThat(await(issuer.renew(lease.leaseId()))).isEmpty();
    }
}
