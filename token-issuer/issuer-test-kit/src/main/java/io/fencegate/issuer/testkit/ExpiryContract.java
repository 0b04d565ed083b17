package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The issuer contract, expiry: an unrenewed lease ends (its listener told), a renewed one lives on,
 * and any instance tells a live lease, a released one and an expired one apart ({@code find},
 * {@code wasReleased}, the listing).
 */
public abstract class ExpiryContract extends WaitingContract {
    // ---------------------------------------------------------------- expiry and renew

    @Test
    void unrenewedLeaseExpiresTellsListenerAndNextHolderGetsLargerToken() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        List<Map.Entry<Lease, LeaseEnd>> ended = new CopyOnWriteArrayList<>();
        a.addListener((lease, reason) -> ended.add(Map.entry(lease, reason)));
        String lock = lock("expire");
        Lease old = acquired(a, lock, Duration.ofMillis(500));
        assertThat(old.expiresAt()).isLessThanOrEqualTo(System.currentTimeMillis() + 500);

        Lease next = await(b.acquire(lock, LONG_TTL, Duration.ofSeconds(15)))
                .orElseThrow(() -> new AssertionError("lease did not expire within 15 s"));
        assertThat(next.token()).isGreaterThan(old.token());
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(old.expiresAt());

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ended.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ended).hasSize(1);
        assertThat(ended.get(0).getKey().leaseId()).isEqualTo(old.leaseId());
        assertThat(ended.get(0).getKey().token()).isEqualTo(old.token());
        assertThat(ended.get(0).getValue()).isEqualTo(LeaseEnd.EXPIRED);

        assertThat(await(a.renew(old.leaseId()))).as("renew after expiry").isEmpty();
        assertThat(await(a.release(old.leaseId()))).as("release after expiry").isFalse();
        assertThat(await(b.renew(next.leaseId()))).as("new holder unaffected").isPresent();
    }

    @Test
    void renewExtendsExpiryAndKeepsTheLeasePastItsFirstTtl() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        List<LeaseEnd> ended = endsHeardBy(a);
        String lock = lock("renew");
        // Renew every 200 ms with a 1.2 s ttl: a busy machine may delay a renew by a second.
        Duration ttl = Duration.ofMillis(1_200);
        Lease lease = acquired(a, lock, ttl);
        long end = System.currentTimeMillis() + 2_000;
        Lease last = lease;
        while (System.currentTimeMillis() < end) {
            Thread.sleep(200);
            Lease renewed = await(a.renew(lease.leaseId())).orElseThrow(() -> new AssertionError("renew refused"));
            assertThat(renewed.leaseId()).isEqualTo(lease.leaseId());
            assertThat(renewed.token()).isEqualTo(lease.token());
            assertThat(renewed.lock()).isEqualTo(lock);
            assertThat(renewed.expiresAt()).isGreaterThan(last.expiresAt());
            last = renewed;
        }
        assertThat(System.currentTimeMillis()).isGreaterThan(lease.expiresAt());
        assertThat(await(b.acquire(lock, LONG_TTL, Duration.ZERO))).as("still held thanks to renew").isEmpty();
        assertThat(await(a.release(lease.leaseId()))).isTrue();
        assertThat(ended).isEmpty();
    }

    // ---------------------------------------------------------------- watching a lease (find, wasReleased)

    @Test
    void anyInstanceFindsALiveLeaseWithItsCurrentExpiryAndTellsAReleaseFromAnExpiry() throws Exception {
        LeaseIssuer granting = issuer();
        LeaseIssuer watching = issuer();
        Lease released = acquired(granting, lock("find-released"), LONG_TTL);
        Lease found = await(watching.find(released.leaseId())).orElseThrow();
        assertThat(found.token()).isEqualTo(released.token());
        assertThat(found.lock()).isEqualTo(released.lock());
        Lease renewed = await(granting.renew(released.leaseId())).orElseThrow();
        assertThat(await(watching.find(released.leaseId())).orElseThrow().expiresAt())
                .isBetween(renewed.expiresAt() - 1000, renewed.expiresAt() + 1000);
        assertThat(await(granting.release(released.leaseId()))).isTrue();
        assertThat(await(watching.find(released.leaseId()))).isEmpty();
        assertThat(await(watching.wasReleased(released))).isTrue();

        Lease expired = acquired(granting, lock("find-expired"), Duration.ofMillis(300));
        Thread.sleep(600);
        assertThat(await(watching.find(expired.leaseId()))).isEmpty();
        assertThat(await(watching.wasReleased(expired))).isFalse();

        assertThat(await(watching.find(tampered(expired.leaseId())))).isEmpty();
        assertThat(await(watching.find("not-a-lease-id"))).isEmpty();
    }

    // ---------------------------------------------------------------- listing

    @Test
    void aListingShowsEveryInstancesLiveLeasesUnderAPrefixPagedInLockOrder() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String prefix = lock("list") + "/";
        List<Lease> live = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            live.add(acquired(i % 2 == 0 ? a : b, prefix + "k" + i, LONG_TTL));
        }
        Lease released = acquired(a, prefix + "released", LONG_TTL);
        assertThat(await(a.release(released.leaseId()))).isTrue();
        acquired(a, prefix + "expired", Duration.ofMillis(200));
        acquired(a, lock("elsewhere"), LONG_TTL);
        Thread.sleep(400);

        List<io.fencegate.issuer.LeaseInfo> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            io.fencegate.issuer.LeasePage page = await(b.list(prefix, cursor, 2));
            assertThat(page.leases().size()).isLessThanOrEqualTo(2);
            seen.addAll(page.leases());
            cursor = page.next().orElse(null);
            assertThat(++pages).as("pages end").isLessThan(20);
        } while (cursor != null);

        assertThat(seen).extracting(io.fencegate.issuer.LeaseInfo::lock)
                .containsExactly(live.stream().map(Lease::lock).toArray(String[]::new));
        for (int i = 0; i < live.size(); i++) {
            assertThat(seen.get(i).token()).isEqualTo(live.get(i).token());
            assertThat(seen.get(i).expiresAt()).isBetween(live.get(i).expiresAt() - 2000, live.get(i).expiresAt() + 2000);
            assertThat(seen.get(i).grantedBy()).as("the granting instance is named").isNotEmpty();
        }
        assertThat(await(a.list(prefix + "nothing-here/", null, 10)).leases()).isEmpty();
        assertThat(failureOf(() -> a.list(prefix, null, 0))).isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> a.list(prefix, null, LeaseIssuer.MAX_LIST_LIMIT + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> a.list(prefix, "forged", 10))).isInstanceOf(IllegalArgumentException.class);
    }

    /** Idle locks one caller leaves, 1.1 MB of names in all: past a ZooKeeper client's default 1 MiB reply. */
    private static final int LONG_NAMED_LOCKS = 850;
    private static final int LONG_NAME_BYTES = 1030;

    /**
     * One caller fills its prefix with idle locks of long names and holds a few: a listing of
     * another prefix still answers, with just its own lease, and a listing of the crowded prefix
     * answers one bounded page. An issuer that read every lock name in one reply failed both.
     */
    @Test
    void aListingIsUnharmedByManyLongLockNamesUnderAnotherPrefix() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer quietOne = issuer();
        String crowded = lock("crowded") + "/";
        String quiet = lock("quiet") + "/";
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        List<Lease> held = new CopyOnWriteArrayList<>();
        try {
            List<java.util.concurrent.Future<?>> made = new ArrayList<>();
            for (int i = 0; i < LONG_NAMED_LOCKS; i++) {
                String head = crowded + String.format("%04d/", i);
                String name = head + "x".repeat(LONG_NAME_BYTES - head.length());
                boolean keep = i % 100 == 0;
                made.add(pool.submit(() -> {
                    Lease lease = acquired(a, name, LONG_TTL);
                    if (keep) {
                        held.add(lease);
                    } else {
                        assertThat(await(a.release(lease.leaseId()))).isTrue();
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : made) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Lease mine = acquired(quietOne, quiet + "mine", LONG_TTL);

        io.fencegate.issuer.LeasePage other = await(a.list(quiet, null, 10));
        assertThat(other.leases()).extracting(io.fencegate.issuer.LeaseInfo::lock).containsExactly(mine.lock());
        io.fencegate.issuer.LeasePage first = await(a.list(crowded, null, 5));
        assertThat(first.leases()).hasSizeLessThanOrEqualTo(5)
                .allSatisfy(l -> assertThat(l.lock()).startsWith(crowded));
        assertThat(first.next()).as("the crowded prefix has more than one page").isPresent();
        for (Lease lease : held) {
            await(a.release(lease.leaseId()));
        }
    }
}
