package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an uncontended acquire+release costs Redis, counted on a redis-server of its own with
 * {@code INFO commandstats} (commands run inside the scripts count too): two script calls, and
 * inside them only what a guarantee needs: 15 commands a pair (14 before the lease clock's TIME,
 * 16 and 18 before that). An
 * acquire reads the run key in its one MGET; a release answers the released-marker's life from the
 * lease's ttl (in its lock value; renew restores the same ttl, so the key's pttl never exceeds it),
 * not from a PTTL of the lock key; the grant's holder rides in the grant log's ZADD (its member),
 * so no holders hash is written at the grant or cleared at the release. An acquire that does not
 * wait touches no waiters mark, and a release that finds none publishes nothing. The issuer's
 * readings of Redis's clock (one a second, three commands each, none a pair) are paused while it counts.
 * What each command buys: docs/PERFORMANCE.md and the scripts' headers.
 */
@Timeout(60)
class UncontendedCommandsIT extends OwnRedisServerTest {
    private static final int PAIRS = 20;

    @Test
    void anUncontendedPairIsTwoScriptCallsOfFifteenCommands() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        for (int i = 0; i < 5; i++) { // loads the scripts and arms the run check's shortcut
            pair(issuer);
        }
        issuer.pauseClockReadings(true);
        Thread.sleep(100); // a reading already sent is answered
        redis.sync().configResetstat();
        for (int i = 0; i < PAIRS; i++) {
            pair(issuer);
        }
        Map<String, Long> calls = commandCalls();
        System.out.printf("commands per uncontended pair: %s%n", calls);
        assertThat(calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L)).isEqualTo(2L * PAIRS);
        // The run key is read with the lock, counter, ceiling and delay in one MGET; no PTTL at release.
        assertThat(calls).doesNotContainKeys("pttl", "get");
        // Nothing that only waiting or a second index needs: no holders hash, no waiters mark, no message.
        assertThat(calls).doesNotContainKeys("hset", "hdel", "publish");
        assertThat(calls.get("set")).as("the lock and the released-marker").isEqualTo(2L * PAIRS);
        assertThat(calls.get("time")).as("the lease clock, checked by the grant").isEqualTo((long) PAIRS);
        long all = calls.values().stream().mapToLong(Long::longValue).sum();
        assertThat(all).isLessThanOrEqualTo(15L * PAIRS);
    }

    /**
     * A permit's pair, taken by a caller that would wait (as the bench's are): 15 commands, as a
     * try-lock's (17 before: INFO server, a second MGET for the slots and a PTTL of the free slot's
     * delay key). One MGET reads the count, counter, ceiling, run and every slot's lock and delay;
     * the armed copy of the permit script skips INFO server; nothing marks the semaphore as waited
     * for, so the release publishes nothing.
     */
    @Test
    void anUncontendedPermitPairIsTwoScriptCallsOfFifteenCommands() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        for (int i = 0; i < 5 || !issuer.permitsSkipRunCheck(); i++) { // loads the scripts, arms the permit script's copy
            assertThat(i).as("the permit script's copy was armed").isLessThan(500);
            permitPair(issuer, Duration.ofSeconds(5));
        }
        issuer.pauseClockReadings(true);
        Thread.sleep(100); // a reading already sent is answered
        redis.sync().configResetstat();
        for (int i = 0; i < PAIRS; i++) {
            permitPair(issuer, Duration.ofSeconds(5));
        }
        Map<String, Long> calls = commandCalls();
        System.out.printf("commands per uncontended permit pair: %s%n", calls);
        assertThat(calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L)).isEqualTo(2L * PAIRS);
        assertThat(calls.get("info")).as("INFO replication only: the armed copy skips INFO server").isEqualTo((long) PAIRS);
        assertThat(calls.get("mget")).as("one MGET an acquire (every slot with the state), one a release").isEqualTo(2L * PAIRS);
        assertThat(calls).doesNotContainKeys("pttl", "get", "hset", "hdel", "publish");
        assertThat(calls.get("set")).as("the slot's lock and the released-marker").isEqualTo(2L * PAIRS);
        long all = calls.values().stream().mapToLong(Long::longValue).sum();
        assertThat(all).isLessThanOrEqualTo(15L * PAIRS);
    }

    /**
     * Callers in flight beside each other that are all granted (permits of one semaphore) do not
     * count as waiting: a grant marks the semaphore only for callers a 'held' answer refused, so
     * no release publishes. (Before, a grant marked it whenever another caller of the semaphore was
     * in flight at this issuer, and its release published a wake-up nobody needed.)
     */
    @Test
    void permitsGrantedBesideOthersInFlightPublishNothing() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        permitPair(issuer, Duration.ZERO); // fixes the count and loads the scripts
        redis.sync().configResetstat();
        for (int round = 0; round < PAIRS; round++) {
            List<CompletableFuture<Optional<Lease>>> inFlight = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                inFlight.add(issuer.acquirePermit("counted-pool", 4, Duration.ofSeconds(30), Duration.ofSeconds(5))
                        .toCompletableFuture());
            }
            for (CompletableFuture<Optional<Lease>> permit : inFlight) {
                Lease lease = permit.get(10, TimeUnit.SECONDS).orElseThrow();
                assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            }
        }
        Map<String, Long> calls = commandCalls();
        assertThat(calls).as("no semaphore waiters mark, no wake-up message").doesNotContainKeys("publish");
        assertThat(calls.get("set")).as("the slot's lock and the released-marker, no waiters mark").isEqualTo(2L * 4 * PAIRS);
    }

    @Test
    void aReleasedLeaseStaysReleasedUntilItsTtlHadRunOut() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        Lease lease = issuer.acquire("ttl-marker", Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                .get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        String marker = PREFIX + "released:" + LeaseIds.parse(lease.leaseId()).orElseThrow().secret();
        // The marker outlives the lease's whole ttl, so an expiry watch never takes the release for an expiry.
        assertThat(redis.sync().pttl(marker)).isGreaterThan(Duration.ofSeconds(29).toMillis());
        assertThat(issuer.wasReleased(lease).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
    }

    private static void pair(RedisLeaseIssuer issuer) throws Exception {
        Lease lease = issuer.acquire("counted", Duration.ofSeconds(30), Duration.ZERO).toCompletableFuture()
                .get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
    }

    private static void permitPair(RedisLeaseIssuer issuer, Duration wait) throws Exception {
        Lease permit = issuer.acquirePermit("counted-pool", 4, Duration.ofSeconds(30), wait).toCompletableFuture()
                .get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(permit.slot()).isZero();
        assertThat(issuer.release(permit.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Calls by command since the last reset, without this test's own CONFIG. */
    private Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : redis.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_config")) {
                calls.put(line.substring("cmdstat_".length(), line.indexOf(':')),
                        Long.parseLong(line.replaceAll("^cmdstat_[^:]+:calls=(\\d+),.*", "$1")));
            }
        }
        return calls;
    }
}
