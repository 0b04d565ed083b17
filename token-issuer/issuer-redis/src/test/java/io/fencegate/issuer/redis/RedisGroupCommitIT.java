package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Concurrent acquires and releases go out group-committed (GroupCommit): one script call for all
 * calls queued behind the one in flight, each caller getting its own answer. To make the batches
 * certain rather than likely, the test pauses its own redis-server's writes (CLIENT PAUSE WRITE,
 * which holds scripts) while it makes the calls: the first two go out and wait at the server
 * (GroupCommit keeps two batches in flight), every later one queues behind them.
 */
@Timeout(120)
class RedisGroupCommitIT extends OwnRedisServerTest {

    private static final Duration TTL = Duration.ofSeconds(30);

    /** 1 + 1 + 64 + 34 acquires (a batch is at most 64), then as many releases: four script calls each. */
    @Test
    void concurrentAcquiresOfDistinctLocksGetEachTheirOwnGrantInFewScriptCalls() throws Exception {
        RedisLeaseIssuer issuer = warmIssuer(1000);
        List<String> locks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            locks.add("orders/" + i);
        }
        redis.sync().configResetstat();
        List<Lease> leases = acquireAllWhilePaused(issuer, locks);

        assertThat(scriptCalls()).as("script calls for 100 concurrent acquires").isEqualTo(4);
        assertThat(leases).extracting(Lease::lock).containsExactlyElementsOf(locks);
        assertThat(new HashSet<>(leases.stream().map(Lease::token).toList())).hasSize(locks.size());
        for (Lease lease : leases) {
            assertHolds(issuer, lease);
        }

        redis.sync().configResetstat();
        pause();
        List<CompletableFuture<Boolean>> releases = new ArrayList<>();
        for (Lease lease : leases) {
            releases.add(issuer.release(lease.leaseId()).toCompletableFuture());
        }
        unpause();
        for (CompletableFuture<Boolean> released : releases) {
            assertThat(released.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(scriptCalls()).as("script calls for 100 concurrent releases").isEqualTo(4);
        for (Lease lease : leases) {
            assertThat(redis.sync().exists(PREFIX + "lock:" + lease.lock())).isZero();
            assertThat(issuer.wasReleased(lease).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** The second acquire of a lock in one batch runs after the first's grant and sees it held. */
    @Test
    void concurrentAcquiresOfOneLockInOneBatchGrantExactlyOne() throws Exception {
        RedisLeaseIssuer issuer = warmIssuer(1000);
        // these two go out alone; the rest form one batch
        List<String> locks = new ArrayList<>(List.of("orders/other", "orders/another"));
        for (int i = 0; i < 20; i++) {
            locks.add("orders/one");
        }
        pause();
        List<CompletableFuture<Optional<Lease>>> calls = new ArrayList<>();
        for (String lock : locks) {
            calls.add(issuer.acquire(lock, TTL, Duration.ZERO).toCompletableFuture());
        }
        unpause();
        List<Lease> granted = new ArrayList<>();
        for (CompletableFuture<Optional<Lease>> call : calls.subList(2, calls.size())) {
            call.get(10, TimeUnit.SECONDS).ifPresent(granted::add);
        }
        assertThat(granted).hasSize(1);
        assertHolds(issuer, granted.get(0));
    }

    /** With a block of 2, most elements of a batch find the ceiling used up and are repaired one by one. */
    @Test
    void elementsNeedingANewTokenBlockInABatchAreAllGranted() throws Exception {
        RedisLeaseIssuer issuer = warmIssuer(2);
        long before = Long.parseLong(redis.sync().get(PREFIX + "token-counter"));
        List<String> locks = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            locks.add("orders/" + i);
        }
        List<Lease> leases = acquireAllWhilePaused(issuer, locks);
        assertThat(leases).extracting(Lease::lock).containsExactlyElementsOf(locks);
        assertThat(new HashSet<>(leases.stream().map(Lease::token).toList())).hasSize(locks.size());
        for (Lease lease : leases) {
            assertThat(lease.token()).isGreaterThan(before);
            assertHolds(issuer, lease);
        }
    }

    /** Every element of a batch answers "counter lost"; each recovers and is granted above every earlier token. */
    @Test
    void elementsFindingTheCounterLostInABatchAreAllGrantedHigherTokens() throws Exception {
        RedisLeaseIssuer issuer = warmIssuer(1000);
        long before = Long.parseLong(redis.sync().get(PREFIX + "token-counter"));
        redis.sync().del(PREFIX + "token-counter");
        List<String> locks = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            locks.add("orders/" + i);
        }
        List<Lease> leases = acquireAllWhilePaused(issuer, locks);
        assertThat(new HashSet<>(leases.stream().map(Lease::token).toList())).hasSize(locks.size());
        for (Lease lease : leases) {
            assertThat(lease.token()).isGreaterThan(before);
            assertHolds(issuer, lease);
        }
    }

    /** A batch whose connection is lost fails every element (mapped); nothing waits for an answer. */
    @Test
    void aLostConnectionFailsEveryElementOfTheBatch() throws Exception {
        RedisLeaseIssuer issuer = warmIssuer(1000);
        pause();
        List<CompletableFuture<Optional<Lease>>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(issuer.acquire("orders/" + i, TTL, Duration.ZERO).toCompletableFuture());
        }
        server.kill(); // the two calls in flight fail; the batches queued behind them go out to a lost connection
        for (CompletableFuture<Optional<Lease>> call : calls) {
            assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IssuerUnavailableException.class);
        }
    }

    /** Calls queued behind a batch in flight fail as soon as the issuer closes, not when the batch answers. */
    @Test
    void closingFailsQueuedCallsAtOnce() throws Exception {
        RedisLeaseIssuer issuer = warmIssuer(1000);
        pause();
        List<CompletableFuture<Optional<Lease>>> inFlight = List.of(
                issuer.acquire("orders/a", TTL, Duration.ZERO).toCompletableFuture(),
                issuer.acquire("orders/b", TTL, Duration.ZERO).toCompletableFuture());
        List<CompletableFuture<Optional<Lease>>> queued = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            queued.add(issuer.acquire("orders/q" + i, TTL, Duration.ZERO).toCompletableFuture());
        }
        issuer.close();
        for (CompletableFuture<Optional<Lease>> call : queued) {
            assertThat(call).isCompletedExceptionally();
            assertThatThrownBy(call::join).hasCauseInstanceOf(IssuerUnavailableException.class);
        }
        unpause();
        for (CompletableFuture<Optional<Lease>> call : inFlight) {
            assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        }
    }

    /** An issuer that has created the counter and armed its run-check shortcut, so counts are steady. */
    private RedisLeaseIssuer warmIssuer(long tokenBlock) throws Exception {
        RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(server.uri()).keyPrefix(PREFIX)
                .tokenBlock(tokenBlock).commandTimeout(Duration.ofSeconds(5))
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark"))));
        issuers.add(issuer);
        Lease warm = issuer.acquire("warm-up", TTL, Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
        issuer.release(warm.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(issuer::skipsRunCheck);
        return issuer;
    }

    private List<Lease> acquireAllWhilePaused(RedisLeaseIssuer issuer, List<String> locks) throws Exception {
        pause();
        List<CompletableFuture<Optional<Lease>>> calls = new ArrayList<>();
        for (String lock : locks) {
            calls.add(issuer.acquire(lock, TTL, Duration.ZERO).toCompletableFuture());
        }
        unpause();
        List<Lease> leases = new ArrayList<>();
        for (CompletableFuture<Optional<Lease>> call : calls) {
            leases.add(call.get(10, TimeUnit.SECONDS).orElseThrow());
        }
        return leases;
    }

    /** The lease's own answer: Redis's lock key holds this lease's secret and token, and renew finds it. */
    private void assertHolds(RedisLeaseIssuer issuer, Lease lease) throws Exception {
        String secret = LeaseIds.parse(lease.leaseId()).orElseThrow().secret();
        assertThat(redis.sync().get(PREFIX + "lock:" + lease.lock()))
                .as("lock key of %s", lease.lock()).startsWith(secret + ":" + lease.token() + ":");
        assertThat(issuer.renew(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS))
                .hasValueSatisfying(renewed -> assertThat(renewed.token()).isEqualTo(lease.token()));
        assertThat(issuer.wasGranted(lease.lock(), lease.token()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Holds every script call at the server until {@link #unpause}; reads still answer. */
    private void pause() {
        assertThat(server.command("CLIENT PAUSE 20000 WRITE")).isEqualTo("+OK");
    }

    private void unpause() {
        assertThat(server.command("CLIENT UNPAUSE")).isEqualTo("+OK");
    }

    private long scriptCalls() {
        long calls = 0;
        for (String line : redis.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += Long.parseLong(line.replaceAll("^cmdstat_[^:]+:calls=(\\d+),.*", "$1"));
            }
        }
        return calls;
    }
}
