package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an uncontended acquire+release costs Redis, counted on a redis-server of its own with
 * {@code INFO commandstats} (commands run inside the scripts count too): two script calls, and
 * inside them only what a guarantee needs: 14 commands a pair (16 before, 18 before that). An
 * acquire reads the run key in its one MGET; a release answers the released-marker's life from the
 * lease's ttl (in its lock value; renew restores the same ttl, so the key's pttl never exceeds it),
 * not from a PTTL of the lock key; the grant's holder rides in the grant log's ZADD (its member),
 * so no holders hash is written at the grant or cleared at the release. An acquire that does not
 * wait touches no waiters mark, and a release that finds none publishes nothing.
 * What each command buys: docs/PERFORMANCE.md and the scripts' headers.
 */
@Timeout(60)
class UncontendedCommandsIT extends OwnRedisServerTest {
    private static final int PAIRS = 20;

    @Test
    void anUncontendedPairIsTwoScriptCallsOfFourteenCommands() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        for (int i = 0; i < 5; i++) { // loads the scripts and arms the run check's shortcut
            pair(issuer);
        }
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
        long all = calls.values().stream().mapToLong(Long::longValue).sum();
        assertThat(all).isLessThanOrEqualTo(14L * PAIRS);
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
