package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseInfo;
import io.fencegate.issuer.LeaseMode;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Gateways of two versions on one Redis, as during a rolling upgrade. The version before wrote a
 * grant's holder into a holders hash (HSET at the grant, HDEL at the release) and logged the bare
 * token in the grant log; this one logs {@code instance:token} there and writes no holders hash.
 * The previous version's acquire, release and list scripts run here as they were
 * ({@code legacy/*.lua} in the test resources), against this version's issuer, both ways.
 */
@Timeout(60)
class RollingUpgradeIT extends OwnRedisServerTest {
    private static final Duration TTL = Duration.ofSeconds(30);

    @Test
    void aLeaseGrantedByThePreviousVersionIsListedRenewedAndReleasedByThisOne() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        warmUp(issuer); // the counter, its ceiling and its run are set, as the old version left them
        String secret = newSecret();
        long token = legacyAcquire("old-lock", secret, "old-gateway/1");
        String leaseId = LeaseIds.format(LeaseIds.Kind.WRITE, "old-lock", secret);

        List<LeaseInfo> listed = await(issuer.list("old-", null, 10)).leases();
        assertThat(listed).singleElement().satisfies(info -> {
            assertThat(info.token()).isEqualTo(token);
            assertThat(info.grantedBy()).as("read from the old holders hash").isEqualTo("old-gateway/1");
        });
        assertThat(await(issuer.renew(leaseId))).map(Lease::token).contains(token);
        assertThat(await(issuer.acquire("old-lock", TTL, Duration.ZERO))).as("still held").isEmpty();

        RedisLeaseIssuer fresh = newIssuer(server); // no cached answers: it asks Redis
        assertThat(await(fresh.wasGranted("old-lock", token))).isTrue();
        assertThat(await(fresh.grantedMode("old-lock", token))).contains(LeaseMode.WRITE);

        assertThat(await(issuer.release(leaseId))).isTrue();
        assertThat(await(issuer.list("old-", null, 10)).leases()).isEmpty();
        assertThat(await(issuer.acquire("old-lock", TTL, Duration.ZERO))).as("free again").isPresent();
    }

    @Test
    void aLeaseGrantedByThisVersionIsListedAndReleasedByThePreviousOne() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        Lease lease = await(issuer.acquire("new-lock", TTL, Duration.ZERO)).orElseThrow();

        // What the old version's wasGranted and grantedMode read: the score, and a member not ending in 'r'.
        List<String> logged = redis.sync().zrangebyscore(OwnRedisServers.PREFIX + "grants:new-lock",
                Range.create(lease.token(), lease.token()));
        assertThat(logged).singleElement().satisfies(member -> assertThat(member).doesNotEndWith("r"));
        assertThat(redis.sync().exists(OwnRedisServers.PREFIX + "holders")).as("no holders hash written").isZero();

        List<Object> page = legacyList("new-");
        assertThat(page).hasSize(2 + 5);
        assertThat(LeaseScripts.str(page.get(2))).isEqualTo("new-lock");
        assertThat(LeaseScripts.asLong(page.get(3))).isEqualTo(lease.token());
        // The old listing finds no holder (its gateway shows none); this one names it.
        assertThat(await(issuer.list("new-", null, 10)).leases()).singleElement()
                .satisfies(info -> assertThat(info.grantedBy()).isEqualTo(new RedisIssuerOptions().instanceName()));

        String secret = LeaseIds.parse(lease.leaseId()).orElseThrow().secret();
        assertThat(legacyRelease("new-lock", secret)).isEqualTo(1L);
        assertThat(await(issuer.wasReleased(lease))).isTrue();
        assertThat(await(issuer.list("new-", null, 10)).leases()).isEmpty();
        assertThat(await(issuer.acquire("new-lock", TTL, Duration.ZERO))).as("free again").isPresent();
    }

    /**
     * The permit script of the version before (a second MGET for the slots, a PTTL of each free
     * slot's delay key, INFO server on every grant) and this one's (one MGET, an armed copy) read and
     * write the same keys: the count, each slot's lock, delay and grant log. On one semaphore they
     * never take one slot twice, never exceed the count, honour each other's lock-delay, and each
     * one's permit is renewed, listed and released by the other's issuer.
     */
    @Test
    void permitsOfThePreviousAndThisVersionShareOneSemaphore() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        Lease first = await(issuer.acquirePermit("pool", 3, TTL, Duration.ZERO)).orElseThrow();
        assertThat(first.slot()).isZero();

        String oldSecret = newSecret();
        List<Object> old = legacyPermit("pool", 3, oldSecret, 0);
        assertThat(LeaseScripts.asLong(old.get(0))).as("the old script granted").isEqualTo(LeaseScripts.GRANTED);
        assertThat(LeaseScripts.asLong(old.get(3))).as("the next free slot, not this version's").isEqualTo(1L);
        long oldToken = LeaseScripts.asLong(old.get(1));
        assertThat(oldToken).isGreaterThan(first.token());
        String oldLeaseId = LeaseIds.format(LeaseIds.Kind.PERMIT, "pool/1", oldSecret);

        Lease third = await(issuer.acquirePermit("pool", 3, TTL, Duration.ZERO)).orElseThrow();
        assertThat(third.slot()).as("this version skips the old version's slot").isEqualTo(2);
        assertThat(third.token()).isGreaterThan(oldToken);
        assertThat(LeaseScripts.asLong(legacyPermit("pool", 3, newSecret(), 0).get(0))).as("the old script: no slot free").isZero();
        assertThat(await(issuer.acquirePermit("pool", 3, TTL, Duration.ZERO))).as("this version: no slot free").isEmpty();
        assertThat(LeaseScripts.asLong(legacyPermit("pool", 4, newSecret(), 0).get(0))).as("the old script: another count")
                .isEqualTo(LeaseScripts.OTHER_COUNT);

        assertThat(await(issuer.renew(oldLeaseId))).map(Lease::token).contains(oldToken);
        assertThat(await(issuer.list("pool/", null, 10)).leases()).extracting(LeaseInfo::lock)
                .containsExactly("pool/0", "pool/1", "pool/2");
        assertThat(await(newIssuer(server).wasGranted("pool/1", oldToken))).isTrue();
        assertThat(await(issuer.release(oldLeaseId))).isTrue();
        String thirdSecret = LeaseIds.parse(third.leaseId()).orElseThrow().secret();
        assertThat(legacyRelease("pool/2", thirdSecret)).as("the old release frees this version's slot").isEqualTo(1L);

        // A lock-delay set by the old script holds the slot against this version once its permit is gone.
        String delayed = newSecret();
        List<Object> withDelay = legacyPermit("pool", 3, delayed, 60_000);
        assertThat(LeaseScripts.asLong(withDelay.get(3))).isEqualTo(1L);
        redis.sync().del(OwnRedisServers.PREFIX + "lock:pool/1"); // its permit ended involuntarily
        Lease next = await(issuer.acquirePermit("pool", 3, TTL, Duration.ZERO)).orElseThrow();
        assertThat(next.slot()).as("slot 1's delay still runs: slot 2 is taken").isEqualTo(2);
        assertThat(await(issuer.acquirePermit("pool", 3, TTL, Duration.ZERO))).as("slot 0 held, 1 delayed, 2 held").isEmpty();
    }

    private static void warmUp(RedisLeaseIssuer issuer) throws Exception {
        Lease lease = await(issuer.acquire("warm-up", TTL, Duration.ZERO)).orElseThrow();
        assertThat(await(issuer.release(lease.leaseId()))).isTrue();
    }

    /** The old acquire script, with the key and argument layout of the old issuer. */
    private long legacyAcquire(String lock, String secret, String instance) {
        String p = OwnRedisServers.PREFIX;
        List<Object> replies = redis.sync().eval(LeaseScripts.lua("run") + legacy("acquire"), ScriptOutputType.MULTI,
                new String[] {p + "token-counter", p + "token-ceiling", p + "token-run", p + "leases", p + "holders",
                        p + "lock:" + lock, p + "grants:" + lock, p + "delay:" + lock, p + "waiters:" + lock},
                "check", "1000", Long.toString(Duration.ofDays(7).toMillis()), "0", instance,
                secret, Long.toString(TTL.toMillis()), "0", lock, "0", "0");
        List<?> reply = (List<?>) replies.get(0);
        assertThat(LeaseScripts.asLong(reply.get(0))).as("the old script granted").isEqualTo(LeaseScripts.GRANTED);
        return LeaseScripts.asLong(reply.get(1));
    }

    /** The old permit script (with the old token.lua), with the old issuer's key and argument layout. */
    private List<Object> legacyPermit(String semaphore, int permits, String secret, long lockDelayMs) {
        String p = OwnRedisServers.PREFIX;
        return redis.sync().eval(LeaseScripts.lua("run") + legacy("token") + legacy("permit"), ScriptOutputType.MULTI,
                new String[] {p + "token-counter", p + "token-ceiling", p + "token-run", p + "leases", p + "holders",
                        p + "permits:" + semaphore, p + "permit-waiters:" + semaphore},
                "1000", Long.toString(Duration.ofDays(7).toMillis()), "0", "old-gateway/1", secret,
                Long.toString(TTL.toMillis()), semaphore, Integer.toString(permits), "0", "0",
                p + "lock:", p + "delay:", p + "grants:", Long.toString(lockDelayMs));
    }

    private long legacyRelease(String lock, String secret) {
        String p = OwnRedisServers.PREFIX;
        List<Object> replies = redis.sync().eval(legacy("release"), ScriptOutputType.MULTI,
                new String[] {p + "leases", p + "holders",
                        p + "lock:" + lock, p + "released:" + secret, p + "delay:" + lock, p + "waiters:" + lock},
                p + "released", "60000", secret, lock);
        return LeaseScripts.asLong(replies.get(0));
    }

    private List<Object> legacyList(String prefix) {
        String p = OwnRedisServers.PREFIX;
        return redis.sync().eval(legacy("list"), ScriptOutputType.MULTI, new String[] {p + "leases", p + "holders"},
                p + "lock:", prefix, "", "10", "40", p + "readers:");
    }

    private static String legacy(String name) {
        try (InputStream in = RollingUpgradeIT.class.getResourceAsStream("legacy/" + name + ".lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String newSecret() {
        byte[] bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
