package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis forgets its token counter on FLUSHALL and on a restart without persistence; tokens must
 * still never repeat or go backwards. Two issuers, each with its own instance of the shared mark
 * (as two gateway hosts would have). Runs on its own redis-server (never the shared one).
 * Subclasses say which {@link TokenHighWaterMark} the issuers share.
 */
@Timeout(120)
abstract class TokenCounterLossContract {

    private static final List<String> LOCKS = List.of("orders/1", "orders/2", "orders/3");

    static final String PREFIX = "fencegate-test:";

    @TempDir
    Path dir;

    RedisServer server;
    private RedisLeaseIssuer first;
    private RedisLeaseIssuer second;

    /** A new instance of the mark the issuers share. */
    abstract TokenHighWaterMark newMark() throws Exception;

    /** The mark's storage forgets it (a deleted file, a deleted row) while Redis keeps the counter. */
    abstract void loseMark() throws Exception;

    @BeforeEach
    void start() throws Exception {
        server = RedisServer.start(dir.resolve("redis"));
        first = newIssuer();
        second = newIssuer();
    }

    @AfterEach
    void stop() throws Exception {
        first.close();
        second.close();
        server.kill();
        assertThat(server.isAlive()).isFalse();
    }

    /**
     * An issuer with its own instance of the shared mark; a tiny block so many refills happen. The command
     * timeout (which also bounds the connection handshake) leaves room for a busy CI machine: no test here
     * waits for it to expire.
     */
    RedisLeaseIssuer newIssuer() throws Exception {
        return newIssuer(newMark());
    }

    RedisLeaseIssuer newIssuer(TokenHighWaterMark mark) {
        return new RedisLeaseIssuer(new RedisIssuerOptions().uri(server.uri()).keyPrefix(PREFIX)
                .tokenBlock(7).commandTimeout(Duration.ofSeconds(5)).highWaterMark(mark));
    }

    @Test
    void tokensAfterFlushallAndRestartExceedEveryEarlierTokenWithoutDuplicates() throws Exception {
        Map<String, List<Long>> perLock = new HashMap<>();
        List<Long> beforeFlush = grantRounds(20, perLock);
        assertThat(server.command("FLUSHALL")).isEqualTo("+OK");
        List<Long> afterFlush = grantRounds(20, perLock);
        server.kill();
        server.startAgain();
        List<Long> afterRestart = grantRounds(20, perLock);

        assertThat(Collections.min(afterFlush)).isGreaterThan(Collections.max(beforeFlush));
        assertThat(Collections.min(afterRestart)).isGreaterThan(Collections.max(afterFlush));
        List<Long> all = new ArrayList<>(beforeFlush);
        all.addAll(afterFlush);
        all.addAll(afterRestart);
        assertThat(all).doesNotHaveDuplicates();
        perLock.forEach((lock, tokens) -> assertThat(tokens).as(lock).isSortedAccordingTo(Long::compare)
                .doesNotHaveDuplicates());
    }

    @Test
    void concurrentGrantsAcrossAFlushallNeverRepeatOrGoBack() throws Exception {
        List<long[]> grants = Collections.synchronizedList(new ArrayList<>()); // {startNanos, endNanos, token}
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            RedisLeaseIssuer issuer = t % 2 == 0 ? first : second;
            String lock = "worker-" + t;
            workers.add(pool.submit(() -> {
                while (!stop.get()) {
                    long startNanos = System.nanoTime();
                    Optional<Lease> lease = acquireRetrying(issuer, lock);
                    long endNanos = System.nanoTime();
                    if (lease.isPresent()) {
                        grants.add(new long[] {startNanos, endNanos, lease.get().token()});
                        issuer.release(lease.get().leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                    }
                }
                return null;
            }));
        }
        // Counted, not timed: on a busy machine half a second may hold no grant at all.
        awaitGrants(grants, 20, Long.MIN_VALUE);
        long flushStart = System.nanoTime();
        assertThat(server.command("FLUSHALL")).isEqualTo("+OK");
        long flushEnd = System.nanoTime();
        awaitGrants(grants, 20, flushEnd);
        stop.set(true);
        for (Future<?> worker : workers) {
            worker.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();

        List<Long> tokens = grants.stream().map(g -> g[2]).toList();
        assertThat(tokens).doesNotHaveDuplicates();
        long maxBefore = grants.stream().filter(g -> g[1] < flushStart).mapToLong(g -> g[2]).max().orElseThrow();
        long minAfter = grants.stream().filter(g -> g[0] > flushEnd).mapToLong(g -> g[2]).min().orElseThrow();
        assertThat(minAfter).isGreaterThan(maxBefore);
    }

    /**
     * The issuer that restores a flushed counter is not the one that reserved the most tokens:
     * the shared mark still covers the busy issuer's reservations.
     */
    @Test
    void anIdleIssuerRestoringTheCounterStaysAboveTheBusyOnesTokens() throws Exception {
        try (RedisLeaseIssuer busy = newIssuer(); RedisLeaseIssuer idle = newIssuer()) {
            long highest = grant(idle, "orders/1");
            for (int i = 0; i < 30; i++) {
                highest = Math.max(highest, grant(busy, "orders/1"));
            }
            assertThat(server.command("FLUSHALL")).isEqualTo("+OK");
            assertThat(grant(idle, "orders/1")).isGreaterThan(highest);
        }
    }

    static long grant(RedisLeaseIssuer issuer, String lock) throws Exception {
        Lease lease = acquireRetrying(issuer, lock).orElseThrow();
        issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        return lease.token();
    }

    @Test
    void grantsAreForgottenAfterFlushallWhichOnlyRefusesWrites() throws Exception {
        Lease lease = first.acquire("orders/9", Duration.ofSeconds(10), Duration.ZERO).toCompletableFuture()
                .get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(second.wasGranted("orders/9", lease.token()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        server.command("FLUSHALL");
        // documented: after Redis loses its data, old grants are unknown (false only refuses a write) ...
        try (RedisLeaseIssuer fresh = newIssuer()) {
            assertThat(fresh.wasGranted("orders/9", lease.token()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
        }
        // ... except to issuers that already saw them (true answers are permanent facts, cached)
        assertThat(first.wasGranted("orders/9", lease.token()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(second.wasGranted("orders/9", lease.token()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aLostMarkWhileRedisKeepsTheCounterStillNeverGoesBack() throws Exception {
        List<Long> before = grantRounds(5, new HashMap<>());
        loseMark();
        List<Long> after = grantRounds(5, new HashMap<>());
        assertThat(Collections.min(after)).isGreaterThan(Collections.max(before));
        // the mark caught up with Redis's counter again
        assertThat(newMark().read()).isGreaterThanOrEqualTo(Collections.max(after));
    }

    /** Acquires and releases each lock {@code rounds} times; answers tokens in grant order. */
    List<Long> grantRounds(int rounds, Map<String, List<Long>> perLock) throws Exception {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            for (String lock : LOCKS) {
                RedisLeaseIssuer issuer = (i + lock.hashCode()) % 2 == 0 ? first : second;
                Lease lease = acquireRetrying(issuer, lock).orElseThrow();
                tokens.add(lease.token());
                perLock.computeIfAbsent(lock, k -> new ArrayList<>()).add(lease.token());
                issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        }
        return tokens;
    }

    /** Waits (bounded) until {@code count} grants that started after {@code startedAfter} are recorded. */
    static void awaitGrants(List<long[]> grants, int count, long startedAfter) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            synchronized (grants) {
                return grants.stream().filter(g -> g[0] > startedAfter).count() >= count;
            }
        });
    }

    /** Retries while the client reconnects after a restart; bounded. */
    static Optional<Lease> acquireRetrying(RedisLeaseIssuer issuer, String lock) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return issuer.acquire(lock, Duration.ofSeconds(10), Duration.ofSeconds(5)).toCompletableFuture()
                        .get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof IssuerUnavailableException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }
}
